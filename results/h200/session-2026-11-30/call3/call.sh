#!/usr/bin/env bash
# Device call 3 (2026-11-30): the same two builds as call 2 (new: the strengths in tree order
# from the device; old: main at c069f63 in .gpu/old), at a fixed CT so that the cost model's
# choice (calibrated per build, its constants 10-20 % apart run to run) is the same on both
# sides: 1e6 uniform and clusters with the field at CT 512, 1e6 uniform and graded polygon
# without at CT 512 and 256 (scripts/gpu-ab, three rounds); then the bench's rows a, b, g, p of both.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
G=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
stamp ab
OUT=$O/ab_field512 ROUNDS=3 EXTRA="--field --ct 512" timeout 150 bash scripts/gpu-ab "1e6:uniform,clusters" > $O/ab_field512.log 2>&1
OUT=$O/ab_512 ROUNDS=3 EXTRA="--ct 512" timeout 100 bash scripts/gpu-ab "1e6:uniform,graded-polygon" > $O/ab_512.log 2>&1
OUT=$O/ab_256 ROUNDS=3 EXTRA="--ct 256" timeout 100 bash scripts/gpu-ab "1e6:graded-polygon 1e7:uniform" > $O/ab_256.log 2>&1
stamp bench
LD_LIBRARY_PATH=$G timeout 200 .gpu/mlfma2d_bench --rows a,b,g,p --json $O/bench-new.json > $O/bench-new.txt 2>&1
LD_LIBRARY_PATH=$G/old:$G timeout 200 .gpu/old/mlfma2d_bench --rows a,b,g,p --json $O/bench-old.json > $O/bench-old.txt 2>&1
stamp done
cat $O/ab_field512.log $O/ab_512.log $O/ab_256.log
grep -E "^(a|b|g) " $O/bench-new.txt $O/bench-old.txt; grep -E "far field [0-9]+ GFLOP" $O/bench-new.txt $O/bench-old.txt | sed 's/.*rel_l2/rel_l2/'
rm -rf $O/cache $O/ab_*/cache-*
tar -czf $OUT/call.tgz -C $OUT w
