#!/usr/bin/env bash
# Device call 1 (2026-11-29d): the cpu back end's adjacent leaves summed both ways (MutualPlan,
# WideKernels::near_mutual), operators revision 9. Tests; CPU only old/new (old = main at c45bf22
# in .gpu/old), potential and field; defaults old/new at 1e6; scripts/gpu-sets 1e6 (FMM2D).
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
stamp tests
for t in test_wide test_unusual test_gpu_backends test_densities test_cost_model; do
  timeout 150 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $? $(tail -1 $O/w/$t.log)" | tee -a $O/w/steps.log
done
timeout 100 .gpu/test_determinism --gtest_filter=-Program.* > $O/w/test_determinism.log 2>&1; echo "test_determinism (not Program.*) rc $? $(tail -1 $O/w/test_determinism.log)" | tee -a $O/w/steps.log
stamp cpu-ab
OUT=$O/w/cpu BACKEND=cpu ROUNDS=3 REPEAT=5 timeout 170 bash scripts/gpu-ab "1e6:uniform,clusters,circle,graded-polygon" > $O/w/cpu.log 2>&1
cat $O/w/cpu.log
stamp cpu-field-ab
OUT=$O/w/cpuf BACKEND=cpu EXTRA=--field ROUNDS=2 REPEAT=5 timeout 60 bash scripts/gpu-ab "1e6:uniform" > $O/w/cpuf.log 2>&1
cat $O/w/cpuf.log
stamp defaults-ab
OUT=$O/w/e10 ROUNDS=1 REPEAT=10 timeout 60 bash scripts/gpu-ab "1e6:uniform,clusters" > $O/w/e10.log 2>&1
cat $O/w/e10.log
stamp sets
left=$(( 570 - ($(date +%s) - t0) ))
OUT=$O/w/sets timeout $left bash scripts/gpu-sets "1e6" > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp done
rm -rf $O/w/*/cache-*
tar -czf $O/call.tgz -C $O w
