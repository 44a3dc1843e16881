#!/usr/bin/env bash
# Device call 5 (2026-11-29f): main at e5a4d3e (the shared back end's mutual path).
# scripts/gpu-sets 1e7 on clusters (call 4 ran out of time before it: FMM2D v3, unbound and
# bound, one evaluation each); gpu-ab at 1e7 on uniform points, two rounds (call 4's one round
# had the far field 20 ms apart between runs).
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
stamp sets
SETS=clusters FIRST_BACKENDS=auto PEER_REPEAT=1 FMM2D_BUILDS=v3 OUT=$O/w/sets timeout 200 bash scripts/gpu-sets 1e7 > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp ab
OUT=$O/w/ab ROUNDS=2 REPEAT=10 timeout 150 bash scripts/gpu-ab "1e7:uniform" > $O/w/ab.log 2>&1
cat $O/w/ab.log
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
