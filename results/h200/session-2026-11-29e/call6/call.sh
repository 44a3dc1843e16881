#!/usr/bin/env bash
# Device call 6 (2026-11-29e): main at 98036ea's library (the bundle); the scripts of the
# commit after 064bea4 (FMM2D_BIND in .fmm2d/run.sh): scripts/gpu-sets 1e6 and
# scripts/gpu-densities (rows i against FMM2D with the same nd, kinds and outputs).
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
stamp sets
OUT=$O/w/sets timeout 250 bash scripts/gpu-sets "1e6" > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp densities
left=$(( 570 - ($(date +%s) - t0) ))
OUT=$O/w/densities timeout $left bash scripts/gpu-densities > $O/w/densities.log 2>&1
cat $O/w/densities/densities.md
stamp done
tar -czf $O/call.tgz -C $O w
