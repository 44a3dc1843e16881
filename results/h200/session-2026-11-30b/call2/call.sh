#!/usr/bin/env bash
# Device call 2 (2026-11-30, second session): the committed build (translation kernel's
# accumulators in registers): the whole GPU suite; bench row b (1e7 uniform, the papers' CT 15)
# and 1e8 uniform at eps 1e-6 (defaults) of both builds, alternating.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
G=$PWD/.gpu
lscpu | grep -i "model name\|^CPU(s)\|Thread" > $O/lscpu.txt
OUT=$O/suite timeout 400 bash .gpu/run.sh > $O/suite.log 2>&1; echo "suite rc $?" | tee -a $O/suite.log
for v in old new old new; do
  b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
  LD_LIBRARY_PATH=$lib timeout 100 $b/mlfma2d_bench --rows p,b --json $O/bench-$v-$RANDOM.json >> $O/bench-$v.txt 2>&1
done
grep -h "^p \|^b " $O/bench-*.txt
W=$(mktemp -d)
LD_LIBRARY_PATH=$G .gpu/mlfma2d generate --shape uniform --n 1e8 --seed 1 --output $W/u8.h5 --quiet
for v in old new old new; do
  b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
  MLFMA2D_CACHE_DIR=$O/cache-$v LD_LIBRARY_PATH=$lib timeout 100 $b/mlfma2d --input $W/u8.h5 --eps 1e-6 --repeat 3 --report json > $O/u8-$v.json 2>/dev/null
  python3 -c "
import json; r=json.load(open('$O/u8-$v.json')); t=r['timings']; ts=sorted(r['totals'])
print('1e8 $v: ct %d med %.1f far %.1f near %.1f m2l %.1f' % (r['ct'], ts[len(ts)//2]*1e3, t['far']*1e3, t['near']*1e3, t['m2l']*1e3))" >> $O/u8.txt
done
rm -rf $W
cat $O/u8.txt; tail -4 $O/suite.log
rm -rf $O/cache*
tar -czf $OUT/call.tgz -C $OUT w
