#!/usr/bin/env bash
# Device call 5 (2026-11-29e): main at 98036ea; scripts/gpu-sets 1e6 (FMM2D now also with its
# threads bound, the fastest taken), twice.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
cp scripts/gpu-sets $O/w/gpu-sets.used
for r in 1 2; do
  OUT=$O/w/sets$r timeout 280 bash scripts/gpu-sets "1e6" > $O/w/sets$r.log 2>&1
  cat $O/w/sets$r/sets.md
done
tar -czf $O/call.tgz -C $O w
