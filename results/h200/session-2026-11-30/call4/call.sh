#!/usr/bin/env bash
# Device call 4 (2026-11-30): the same two builds as calls 2-3, between 1e6 and 1e7 points
# (where the strengths' way back from the device stops costing and starts paying): uniform and
# clusters at 2e6 and 4e6 points, defaults with a fixed CT 512 and 256 (scripts/gpu-ab, three rounds).
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
OUT=$O/ab_512 ROUNDS=3 EXTRA="--ct 512" timeout 200 bash scripts/gpu-ab "2e6:uniform,clusters 4e6:uniform,clusters" > $O/ab_512.log 2>&1
OUT=$O/ab_256 ROUNDS=3 EXTRA="--ct 256" timeout 200 bash scripts/gpu-ab "2e6:uniform 4e6:uniform" > $O/ab_256.log 2>&1
cat $O/ab_512.log $O/ab_256.log
rm -rf $O/cache $O/ab_*/cache-*
tar -czf $OUT/call.tgz -C $OUT w
