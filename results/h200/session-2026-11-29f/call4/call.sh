#!/usr/bin/env bash
# Device call 4 (2026-11-29f): main at e5a4d3e (the shared back end's mutual path).
# scripts/gpu-sets 1e7 (FMM2D's v3 build, its threads unbound and bound: the faster build at 1e7
# in every earlier call); gpu-ab at 1e7 (old = c31208b), uniform and clusters, one round.
# (gpu-sets ran past its 420 s: a size alone is its "first", with three FMM2D evaluations and the
# CPU-only runs; uniform, circle and graded polygon done, clusters in call 5.)
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
stamp sets
FMM2D_BUILDS=v3 OUT=$O/w/sets timeout 420 bash scripts/gpu-sets 1e7 > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp ab
OUT=$O/w/ab ROUNDS=1 REPEAT=10 timeout 140 bash scripts/gpu-ab "1e7:uniform,clusters" > $O/w/ab.log 2>&1
cat $O/w/ab.log
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
