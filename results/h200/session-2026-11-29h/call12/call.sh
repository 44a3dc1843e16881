#!/usr/bin/env bash
# Device call 12 (2026-11-29h): 1e8 uniform points, eps 1e-6, the defaults, three evaluations,
# main at 4f6e7c2 (.gpu/old) and d267c7c's code (.gpu; 9a18106 changes results and docs alone).
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
W=$(mktemp -d)
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
stamp generate
LD_LIBRARY_PATH=$PWD/.gpu .gpu/mlfma2d generate --shape uniform --n 1e8 --seed 1 --output $W/u8.h5 --quiet
for v in new old; do
  stamp $v
  b=.gpu; lib=$PWD/.gpu; [ $v = old ] && b=.gpu/old && lib=$PWD/.gpu/old:$PWD/.gpu
  MLFMA2D_CACHE_DIR=$W/cache-$v LD_LIBRARY_PATH=$lib timeout 200 $b/mlfma2d --input $W/u8.h5 --eps 1e-6 --repeat 3 > $O/uniform-1e8-$v.txt 2>&1
  echo "rc $?" >> $O/uniform-1e8-$v.txt
done
stamp done
rm -rf $W
tar -czf $OUT/call.tgz -C $OUT w
