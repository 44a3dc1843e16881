#!/usr/bin/env bash
# Device call 9 (2026-11-29h): the working tree against FMM2D at 1e6 (scripts/gpu-sets: the
# defaults with the GPU, and CPU only), then the same for main at 4f6e7c2 (.gpu/old) CPU only.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
stamp sets
OUT=$O/sets bash scripts/gpu-sets 1e6 > $O/sets.log 2>&1
stamp ab-cpu
OUT=$O/ab_cpu ROUNDS=2 BACKEND=cpu bash scripts/gpu-ab "1e6:uniform,circle,graded-polygon,clusters" > $O/ab_cpu.log 2>&1
stamp done
find $O -name "cache*" -type d -prune -exec rm -rf {} +
tar -czf $OUT/call.tgz -C $OUT w
