#!/usr/bin/env bash
# Device call 4 (2026-11-29i): main at 650b3ae (the point operators) against 8b5ec0f (old):
# against FMM2D at 1e6 on the four sets (scripts/gpu-sets), per evaluation CPU only and with the
# GPU on circle and graded polygon (scripts/gpu-ab), and 1e8 uniform at eps 1e-6.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
stamp sets
OUT=$O/sets bash scripts/gpu-sets 1e6 > $O/sets.log 2>&1
stamp ab
OUT=$O/ab_gpu ROUNDS=2 bash scripts/gpu-ab "1e6:circle,graded-polygon" > $O/ab_gpu.log 2>&1
OUT=$O/ab_cpu ROUNDS=2 BACKEND=cpu bash scripts/gpu-ab "1e6:circle,graded-polygon" > $O/ab_cpu.log 2>&1
stamp 1e8
W=$(mktemp -d)
LD_LIBRARY_PATH=$PWD/.gpu .gpu/mlfma2d generate --shape uniform --n 1e8 --seed 1 --output $W/u8.h5 --quiet
for v in new old; do
  b=.gpu; lib=$PWD/.gpu; [ $v = old ] && b=.gpu/old && lib=$PWD/.gpu/old:$PWD/.gpu
  MLFMA2D_CACHE_DIR=$W/cache-$v LD_LIBRARY_PATH=$lib timeout 200 $b/mlfma2d --input $W/u8.h5 --eps 1e-6 --repeat 3 > $O/uniform-1e8-$v.txt 2>&1
  echo "rc $?" >> $O/uniform-1e8-$v.txt
done
rm -rf $W
stamp done
find $O -name "cache*" -type d -prune -exec rm -rf {} +
tar -czf $OUT/call.tgz -C $OUT w
