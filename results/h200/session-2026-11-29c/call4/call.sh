#!/usr/bin/env bash
# Device call 4 (2026-11-29c): the working tree (the fused translations, the scaling after on
# planes, no prefetch of the next target in M2L). Tests of the far field and the GPU back ends;
# rows i; CPU only and defaults old/new (old = main at a58db13 in .gpu/old); FMM2D at 1e6 and 1e7.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
stamp tests
for t in test_wide test_farfield test_densities test_gpu_backends test_determinism test_cost_model; do
  timeout 200 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $? $(tail -1 $O/w/$t.log)"
done
stamp rows-i
MLFMA2D_CACHE_DIR=$O/w/bench-cache timeout 120 .gpu/mlfma2d_bench --rows i --densities-n 1000000 --repeat 15 --json $O/w/rows_i.json > $O/w/rows_i.log 2>&1
grep -E "^i[1-5] " $O/w/rows_i.log | head -5
stamp cpu-ab
OUT=$O/w/cpu BACKEND=cpu ROUNDS=2 REPEAT=5 timeout 120 bash scripts/gpu-ab "1e6:uniform,clusters" > $O/w/cpu.log 2>&1
cat $O/w/cpu.log
stamp defaults-ab
OUT=$O/w/e10 ROUNDS=2 REPEAT=10 timeout 120 bash scripts/gpu-ab "1e6:uniform,circle,graded-polygon,clusters 1e7:uniform,clusters" > $O/w/e10.log 2>&1
cat $O/w/e10.log
stamp sets
left=$(( 560 - ($(date +%s) - t0) ))
OUT=$O/w/sets timeout $left bash scripts/gpu-sets "1e6 1e7" > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md; tail -3 $O/w/sets/sets.jsonl
stamp done
rm -rf $O/w/*/cache-* $O/w/bench-cache
tar -czf $O/call.tgz -C $O w
