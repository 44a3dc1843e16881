#!/usr/bin/env bash
# Device call 6 (2026-11-30): call 5 saw 1e6 clustered points 1.32x slower in the new build (far
# field 8.3-9.2 ms against 6.0-6.6, near 5.4 against 6.1; same CT and levels), where the copy back
# is below its size and not taken. Now tree_order_strengths() also returns at once below that size
# (no device made current on the far field's thread). Both builds, 1e6 clusters and uniform at
# the defaults, reports with every operator's time, four rounds alternating; gpu-ab once more.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
G=$PWD/.gpu
W=$(mktemp -d)
LD_LIBRARY_PATH=$G .gpu/mlfma2d generate --shape clusters --n 1e6 --seed 1 --output $W/c6.h5 --quiet
LD_LIBRARY_PATH=$G .gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --output $W/u6.h5 --quiet
for r in 1 2 3 4; do
  for v in old new; do
    b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
    for f in c6 u6; do
      MLFMA2D_CACHE_DIR=$O/cache-$v LD_LIBRARY_PATH=$lib $b/mlfma2d --input $W/$f.h5 --eps 1e-10 --repeat 10 --report json > $O/$f-$v-$r.json 2>/dev/null
      python3 -c "
import json; r=json.load(open('$O/$f-$v-$r.json')); t=r['timings']; ts=sorted(r['totals'])
print('$f $v $r: ct %d levels %d med %.2f far %.2f near %.2f p2m %.2f m2m %.2f m2l %.2f p2l %.2f l2l %.2f l2p %.2f m2p %.2f' % (r['ct'], r['levels'], ts[len(ts)//2]*1e3, t['far']*1e3, t['near']*1e3, t['p2m']*1e3, t['m2m']*1e3, t['m2l']*1e3, t['p2l']*1e3, t['l2l']*1e3, t['l2p']*1e3, t['m2p']*1e3))"
    done
  done
done > $O/reports.log 2>&1
rm -rf $W
OUT=$O/ab ROUNDS=3 timeout 150 bash scripts/gpu-ab "1e6:clusters,uniform" > $O/ab.log 2>&1
cat $O/reports.log $O/ab.log
rm -rf $O/cache* $O/ab/cache-*
tar -czf $OUT/call.tgz -C $OUT w
