#!/usr/bin/env bash
# Device call 13 (2026-11-29h): the far field's GFLOP/s in the CPU-only path and with the GPU at
# the defaults, 1e6 uniform points, eps 1e-10 (the reports' far_gflops), and the probe's peak.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export LD_LIBRARY_PATH=$PWD/.gpu MLFMA2D_CACHE_DIR=$(mktemp -d)
W=$(mktemp -d)
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --output $W/u6.h5 --quiet
.gpu/mlfma2d_bench --rows p --threads 16 2>&1 | grep "^p " > $O/peak.txt
for r in 1 2; do
  for b in cpu default; do
    args=(); [ $b = cpu ] && args=(--backend cpu)
    .gpu/mlfma2d --input $W/u6.h5 --eps 1e-10 --repeat 10 "${args[@]}" --report json > $O/report-$b-$r.json 2>/dev/null
  done
done
python3 - "$O" <<'PY' > $O/far.txt
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + '/report-*.json')):
    d = json.load(open(f))
    t = d['timings']
    print(f.split('/')[-1], d['backend'], 'CT', d['ct'], 'far %.2f ms' % (t['far'] * 1e3),
          'm2l %.2f ms' % (t['m2l'] * 1e3), 'far GFLOP/s %.1f' % d['far_gflops'],
          'total %.2f ms' % (t['total'] * 1e3))
PY
rm -rf $W
tar -czf $OUT/call.tgz -C $OUT w
