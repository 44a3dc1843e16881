#!/usr/bin/env bash
# Device call 2 (2026-11-30): the working tree (a staged evaluation's strengths in tree order
# copied back from the device for the far field; P2M's 1/k from Operators) against main at
# c069f63 (.gpu/old): the new GPU test first; per evaluation at the defaults (scripts/gpu-ab,
# three rounds: 1e6 uniform, clusters, graded polygon, 1e7 uniform, graded polygon; and with the
# field at 1e6 and 1e7 uniform); the traces at 1e7; 1e8 uniform eps 1e-6 two rounds; the whole GPU
# suite last.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
G=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
stamp gpu_shared
LD_LIBRARY_PATH=$G timeout 120 .gpu/test_gpu_shared > $O/test_gpu_shared.log 2>&1; echo "rc $?" >> $O/test_gpu_shared.log
tail -3 $O/test_gpu_shared.log
stamp ab
OUT=$O/ab ROUNDS=3 timeout 200 bash scripts/gpu-ab > $O/ab.log 2>&1
OUT=$O/ab_field ROUNDS=2 EXTRA="--field" timeout 100 bash scripts/gpu-ab "1e6:uniform 1e7:uniform" > $O/ab_field.log 2>&1
stamp trace
W=$(mktemp -d)
.gpu/mlfma2d generate --shape uniform --n 1e7 --seed 1 --output $W/u7.h5 --quiet 2>/dev/null || LD_LIBRARY_PATH=$G .gpu/mlfma2d generate --shape uniform --n 1e7 --seed 1 --output $W/u7.h5 --quiet
for v in old new; do
  b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
  LD_LIBRARY_PATH=$lib MLFMA2D_TRACE=1 $b/mlfma2d --input $W/u7.h5 --eps 1e-10 --repeat 5 --report json > $O/report7-$v.json 2> $O/trace7-$v.txt
done
stamp 1e8
LD_LIBRARY_PATH=$G .gpu/mlfma2d generate --shape uniform --n 1e8 --seed 1 --output $W/u8.h5 --quiet
for r in 1 2; do
  for v in old new; do
    b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
    LD_LIBRARY_PATH=$lib timeout 120 $b/mlfma2d --input $W/u8.h5 --eps 1e-6 --repeat 3 --report json > $O/u8-$v-$r.json 2>/dev/null
    python3 -c "
import json; r=json.load(open('$O/u8-$v-$r.json')); t=r['timings']; ts=sorted(r['totals'])
print('u8 $v $r: min %.1f med %.1f far %.1f near %.1f m2l %.1f p2m %.1f peak %.0f MiB' % (ts[0]*1e3, ts[len(ts)//2]*1e3, t['far']*1e3, t['near']*1e3, t['m2l']*1e3, t['p2m']*1e3, r['memory_peak']/2**20))"
  done
done > $O/u8.log 2>&1
cat $O/u8.log
rm -rf $W
stamp suite
OUT=$O/suite timeout 300 bash .gpu/run.sh > $O/suite.log 2>&1; echo "suite rc $?" >> $O/steps.log
stamp done
tail -25 $O/ab.log; tail -8 $O/ab_field.log; tail -5 $O/suite.log
rm -rf $O/cache
tar -czf $OUT/call.tgz -C $OUT w
