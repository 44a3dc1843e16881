#!/usr/bin/env bash
# Device call 6 (2026-11-29b): an experiment: the shared kernel's dense loop unrolled by 2 and 4
# (libraries .gpu/u2, .gpu/u4: 5f9cd81 with -DMLFMA2D_DENSE_UNROLL) against 5f9cd81 (.gpu),
# three rounds alternating, the near kernel's time and the evaluation's.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
B=.gpu/mlfma2d
export LD_LIBRARY_PATH=$PWD/.gpu
$B generate --shape uniform --n 1e6 --seed 1 --output /tmp/u1.h5 --quiet
$B generate --shape uniform --n 1e6 --densities 8 --seed 1 --output /tmp/u8.h5 --quiet
$B generate --shape clusters --n 1e6 --seed 1 --output /tmp/k1.h5 --quiet
for r in 1 2 3; do
  for v in base u2 u4; do
    lib=$PWD/.gpu; [ $v = base ] || lib=$PWD/.gpu/$v:$PWD/.gpu
    for spec in "nd1 /tmp/u1.h5" "nd8 /tmp/u8.h5" "field /tmp/u1.h5 --field" "hess /tmp/u1.h5 --field --hessian" "clusters /tmp/k1.h5"; do
      set -- $spec; id=$1; f=$2; shift 2
      LD_LIBRARY_PATH=$lib $B --input $f --eps 1e-10 --ct 512 --repeat 10 --report json "$@" > $O/w/${id}_${v}_$r.json 2>/dev/null
      python3 - $O/w/${id}_${v}_$r.json "$id $v $r" <<'PY'
import json, statistics, sys
j = json.load(open(sys.argv[1])); t = j["timings"]
print("%-16s median %.2f ms | near kernel %.2f near %.2f far %.2f" % (sys.argv[2], 1e3 * statistics.median(j["totals"][1:]), 1e3 * t["near_kernel"], 1e3 * t["near"], 1e3 * t["far"]))
PY
    done
  done
done
tar -czf $O/call.tgz -C $O w
