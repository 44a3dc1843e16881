#!/usr/bin/env bash
# Device call 3 (2026-11-30, second session): the far field's share of the peak with several
# densities: 1e6 uniform points, nd = 8 densities of charges (an HDF5 file made with h5py),
# eps 1e-10, CPU only at CT 15 and CT 32, and with the GPU at the defaults, both builds
# alternating, two rounds; the FMA peak (bench row p) before and after.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
G=$PWD/.gpu
W=$(mktemp -d)
python3 - "$W/nd8.h5" <<'PY'
import sys, numpy as np, h5py
rng = np.random.default_rng(1)
n = 1000000
with h5py.File(sys.argv[1], "w") as f:
    f["/sources/x"] = rng.random(n)
    f["/sources/y"] = rng.random(n)
    f["/sources/q"] = rng.uniform(-1, 1, (8, n))
PY
LD_LIBRARY_PATH=$G .gpu/mlfma2d_bench --rows p > $O/peak-before.txt 2>&1
for r in 1 2; do
  for v in old new; do
    b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
    for spec in "cpu15:--backend cpu --ct 15" "cpu32:--backend cpu --ct 32" "gpu:"; do
      k=${spec%%:*}; args=${spec#*:}
      MLFMA2D_CACHE_DIR=$O/cache-$v LD_LIBRARY_PATH=$lib timeout 120 $b/mlfma2d --input $W/nd8.h5 --eps 1e-10 --repeat 5 $args --report json > $O/$k-$v-$r.json 2>/dev/null
      python3 -c "
import json; r=json.load(open('$O/$k-$v-$r.json')); t=r['timings']; ts=sorted(r['totals'])
print('$k $v $r: backend %s ct %d med %.2f far %.2f near %.2f p2m %.2f m2m %.2f m2l %.2f l2l %.2f l2p %.2f far_gflops %.1f' % (r['backend'], r['ct'], ts[len(ts)//2]*1e3, t['far']*1e3, t['near']*1e3, t['p2m']*1e3, t['m2m']*1e3, t['m2l']*1e3, t['l2l']*1e3, t['l2p']*1e3, r['far_gflops']))" >> $O/nd8.txt 2>&1
    done
  done
done
LD_LIBRARY_PATH=$G .gpu/mlfma2d_bench --rows p > $O/peak-after.txt 2>&1
rm -rf $W $O/cache*
cat $O/nd8.txt; grep -h "^p " $O/peak-*.txt
tar -czf $OUT/call.tgz -C $OUT w
