#!/usr/bin/env bash
# Device call 5 (2026-11-30): the working tree with the size rule (the strengths copied back from
# the device from 2^21 of them on, nearfield/backend.hpp strengths_back) against main at c069f63
# (.gpu/old): the GPU test of the handshake first; per evaluation at the defaults (scripts/gpu-ab,
# three rounds, 1e6 uniform, clusters, graded polygon; 1e7 uniform, graded polygon); 1e8 uniform
# eps 1e-6 (two rounds); the bench's rows a, b, g, p of both builds; the whole GPU suite last.
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
stamp 1e8
W=$(mktemp -d)
LD_LIBRARY_PATH=$G .gpu/mlfma2d generate --shape uniform --n 1e8 --seed 1 --output $W/u8.h5 --quiet
for r in 1 2; do
  for v in old new; do
    b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
    LD_LIBRARY_PATH=$lib timeout 120 $b/mlfma2d --input $W/u8.h5 --eps 1e-6 --repeat 3 --report json > $O/u8-$v-$r.json 2>/dev/null
    python3 -c "
import json; r=json.load(open('$O/u8-$v-$r.json')); t=r['timings']; ts=sorted(r['totals'])
print('u8 $v $r: min %.1f med %.1f far %.1f near %.1f m2l %.1f p2m %.1f peak %.0f MiB estimate %.0f MiB' % (ts[0]*1e3, ts[len(ts)//2]*1e3, t['far']*1e3, t['near']*1e3, t['m2l']*1e3, t['p2m']*1e3, r['memory_peak']/2**20, r['memory_estimate']/2**20))"
  done
done > $O/u8.log 2>&1
rm -rf $W
stamp bench
LD_LIBRARY_PATH=$G timeout 150 .gpu/mlfma2d_bench --rows a,b,p --json $O/bench-new.json > $O/bench-new.txt 2>&1
LD_LIBRARY_PATH=$G/old:$G timeout 150 .gpu/old/mlfma2d_bench --rows a,b,p --json $O/bench-old.json > $O/bench-old.txt 2>&1
stamp suite
OUT=$O/suite timeout 280 bash .gpu/run.sh > $O/suite.log 2>&1; echo "suite rc $?" >> $O/steps.log
stamp done
cat $O/ab.log $O/u8.log; tail -3 $O/suite.log
grep -E "^(a|b|p) " $O/bench-new.txt $O/bench-old.txt | sort -u
rm -rf $O/cache $O/ab/cache-*
tar -czf $OUT/call.tgz -C $OUT w
