#!/usr/bin/env bash
# Device call 3 (2026-11-29d): main at ae13e8c (the pairs' terms written once for both wide near
# kernels, the gathered sources copied a run at a time). Every test binary (.gpu/run.sh); CPU
# only old/new, three rounds, all four sets (old = main at c45bf22 in .gpu/old);
# scripts/gpu-sets 1e6 (FMM2D) a third time.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
stamp run.sh
OUT=$O/w/run timeout 300 bash .gpu/run.sh > $O/w/run.log 2>&1
grep -E "rc [0-9]+|passed|failed" $O/w/run.log | tail -50 > $O/w/run-summary.txt
tail -3 $O/w/run-summary.txt
export LD_LIBRARY_PATH=$PWD/.gpu
stamp cpu-ab
OUT=$O/w/cpu BACKEND=cpu ROUNDS=3 REPEAT=5 timeout 170 bash scripts/gpu-ab "1e6:uniform,clusters,circle,graded-polygon" > $O/w/cpu.log 2>&1
cat $O/w/cpu.log
stamp sets
left=$(( 575 - ($(date +%s) - t0) ))
OUT=$O/w/sets timeout $left bash scripts/gpu-sets "1e6" > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp done
rm -rf $O/w/*/cache-*
tar -czf $O/call.tgz -C $O w
