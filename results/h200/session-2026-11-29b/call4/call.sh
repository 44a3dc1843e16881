#!/usr/bin/env bash
# Device call 4 (2026-11-29b): the final build. Every test binary (.gpu/run.sh); FMM2D at 1e6;
# rows i; the choice for the Hessian and the circle; defaults old/new at 1e6 and 1e7.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
stamp run.sh
OUT=$O/w/run bash .gpu/run.sh > $O/w/run.log 2>&1
grep -E "^test_|rc [1-9]|FAILED" $O/w/run.log | head -60
stamp sets
OUT=$O/w/sets bash scripts/gpu-sets 1e6 > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp rows-i
MLFMA2D_CACHE_DIR=$O/w/bench-cache timeout 200 .gpu/mlfma2d_bench --rows i --densities-n 1000000 --repeat 15 --json $O/w/rows_i.json > $O/w/rows_i.log 2>&1
grep -E "^i[1-5] " $O/w/rows_i.log
stamp choice
B=.gpu/mlfma2d
$B generate --shape uniform --n 1e6 --seed 1 --output /tmp/u1.h5 --quiet
$B generate --shape circle --n 1e6 --seed 1 --output /tmp/c1.h5 --quiet
for spec in "hess /tmp/u1.h5 --field --hessian" "circle /tmp/c1.h5"; do
  set -- $spec; id=$1; f=$2; shift 2
  MLFMA2D_CACHE_DIR=$O/w/cache $B --input $f --eps 1e-10 --repeat 10 --report json "$@" > $O/w/$id.json 2>/dev/null
  python3 - $O/w/$id.json "$id" <<'PY'
import json, statistics, sys
j = json.load(open(sys.argv[1])); t = j["timings"]
print("%-8s CT %5s median %.2f ms | near %.2f far %.2f" % (sys.argv[2], j["ct"], 1e3 * statistics.median(j["totals"][1:]), 1e3 * t["near"], 1e3 * t["far"]))
for c in (j.get("auto") or {}).get("candidates", []):
    print("    predicted CT %5d levels %2d far %.2f near %.2f total %.2f" % (c["ct"], c["levels"], 1e3 * c["far_seconds"], 1e3 * c["near_seconds"], 1e3 * c["total_seconds"]))
PY
done
stamp defaults-ab
OUT=$O/w/e10 ROUNDS=2 REPEAT=10 bash scripts/gpu-ab "1e6:uniform,circle,graded-polygon,clusters 1e7:uniform,graded-polygon" > $O/w/e10.log 2>&1
cat $O/w/e10.log
stamp done
rm -rf $O/w/*/cache-* $O/w/cache $O/w/bench-cache
tar -czf $O/call.tgz -C $O w
