#!/usr/bin/env bash
# Device call 2 (2026-11-29e): main at 98036ea (P2L's gathered sources in vector loops,
# operators revision 10); old = main at eb4ba52 in .gpu/old; .gpu/bands = 98036ea plus P2L and
# M2P truncated per chunk of 32 points (no CUDA: for wx_bench only). Every test binary
# (.gpu/run.sh); P2L and M2P alone (old, new, bands); gpu-ab at the defaults; gpu-sets 1e6.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
stamp run.sh
OUT=$O/w/run timeout 300 bash .gpu/run.sh > $O/w/run.log 2>&1
grep -E "rc [0-9]+|passed|failed" $O/w/run.log | tail -50 > $O/w/run-summary.txt
tail -3 $O/w/run-summary.txt
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
    for v in old new bands; do
      lib=$PWD/.gpu bin=.gpu/wx_bench
      [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu
      [ $v = bands ] && lib=$PWD/.gpu/bands:$PWD/.gpu bin=.gpu/bands/wx_bands
      echo "$v ct $ct 16t: $(LD_LIBRARY_PATH=$lib timeout 60 $bin $W/c.bin $ct 16 1 20 15)" >> $O/w/wx.log
    done
  done
done
for v in old new bands; do
  lib=$PWD/.gpu bin=.gpu/wx_bench
  [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu
  [ $v = bands ] && lib=$PWD/.gpu/bands:$PWD/.gpu bin=.gpu/bands/wx_bands
  echo "$v ct 512 1t: $(LD_LIBRARY_PATH=$lib timeout 60 $bin $W/c.bin 512 1 1 5 15)" >> $O/w/wx.log
done
cat $O/w/wx.log
stamp ab
OUT=$O/w/ab ROUNDS=3 REPEAT=10 timeout 200 bash scripts/gpu-ab "1e6:clusters,uniform 1e7:clusters" > $O/w/ab.log 2>&1
cat $O/w/ab.log
stamp sets
left=$(( 575 - ($(date +%s) - t0) ))
OUT=$O/w/sets timeout $left bash scripts/gpu-sets "1e6" > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp done
rm -rf $O/w/*/cache-*
tar -czf $O/call.tgz -C $O w
