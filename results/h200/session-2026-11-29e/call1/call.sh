#!/usr/bin/env bash
# Device call 1 (2026-11-29e): main at eb4ba52 plus P2L's gathered sources in vector loops
# (old = main at eb4ba52 in .gpu/old). P2L and M2P alone (wx_bench, clusters 1e6, CT 512 and
# 128, 16 and 1 threads); the defaults' phases on clusters; gpu-ab at the defaults (4 sets) and
# CPU only (2 sets); scripts/gpu-sets 1e6.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
stamp wx
.gpu/mlfma2d generate --shape clusters --n 1e6 --seed 1 --output $W/c.h5 --quiet
python3 -c "
import h5py, numpy as np
f = h5py.File('$W/c.h5', 'r')
np.concatenate([np.asarray(f['sources/x'], float), np.asarray(f['sources/y'], float)]).tofile('$W/c.bin')"
for ct in 512 128; do
  for r in 1 2 3; do
    for v in old new; do
      lib=$PWD/.gpu; [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu
      echo "$v ct $ct 16t: $(LD_LIBRARY_PATH=$lib timeout 60 .gpu/wx_bench $W/c.bin $ct 16 1 20 15)" >> $O/w/wx.log
    done
  done
done
for v in old new; do
  lib=$PWD/.gpu; [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu
  echo "$v ct 512 1t: $(LD_LIBRARY_PATH=$lib timeout 60 .gpu/wx_bench $W/c.bin 512 1 1 5 15)" >> $O/w/wx.log
  echo "$v ct 512 16t nd 8: $(LD_LIBRARY_PATH=$lib timeout 60 .gpu/wx_bench $W/c.bin 512 16 8 10 15)" >> $O/w/wx.log
done
cat $O/w/wx.log
stamp phases
for r in 1 2; do
  for v in old new; do
    bin=.gpu/mlfma2d lib=$PWD/.gpu
    [ $v = old ] && bin=.gpu/old/mlfma2d lib=$PWD/.gpu/old:$PWD/.gpu
    LD_LIBRARY_PATH=$lib MLFMA2D_CACHE_DIR=$W/cache-$v timeout 60 $bin --input $W/c.h5 --eps 1e-10 --repeat 10 --report json > $W/p.json 2>/dev/null
    python3 -c "
import json, statistics
j = json.load(open('$W/p.json')); t = j['timings']
print('$v', j['backend'], 'CT', j['ct'], 'median ms %.2f' % (1e3 * statistics.median(j['totals'][1:])), ' '.join('%s %.2f' % (k, 1e3 * t[k]) for k in ['far', 'near', 'p2m', 'm2m', 'm2l', 'p2l', 'l2l', 'l2p', 'm2p']))" >> $O/w/phases.log
  done
done
cat $O/w/phases.log
stamp ab
OUT=$O/w/ab ROUNDS=3 REPEAT=10 timeout 200 bash scripts/gpu-ab "1e6:clusters,uniform,graded-polygon,circle" > $O/w/ab.log 2>&1
cat $O/w/ab.log
stamp cpu-ab
OUT=$O/w/cpu BACKEND=cpu ROUNDS=2 REPEAT=5 timeout 100 bash scripts/gpu-ab "1e6:clusters,graded-polygon" > $O/w/cpu.log 2>&1
cat $O/w/cpu.log
stamp sets
left=$(( 575 - ($(date +%s) - t0) ))
OUT=$O/w/sets timeout $left bash scripts/gpu-sets "1e6" > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp done
rm -rf $O/w/*/cache-*
tar -czf $O/call.tgz -C $O w
