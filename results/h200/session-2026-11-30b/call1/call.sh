#!/usr/bin/env bash
# Device call 1 (2026-11-30, second session): the translation kernel's accumulators kept in
# registers through the scaling after (new) against main at a0d579b (old), alternating: the host's
# CPU topology; M2L alone (m2l_probe, 1e6 uniform, CT 32, 16 threads); bench rows p, a, g (the
# papers' CT 15, 1e6; the FMA peak and the in-cache kernel); CPU-only reports at CT 15 with every
# operator's time; gpu-ab CPU only and with the GPU at 1e6; the kernel and far-field tests.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
G=$PWD/.gpu
export MLFMA2D_CACHE_DIR=$O/cache
lscpu > $O/lscpu.txt 2>&1
for c in /sys/devices/system/cpu/cpu[0-9]*; do
  echo "$(basename $c) core $(cat $c/topology/core_id) pkg $(cat $c/topology/physical_package_id) siblings $(cat $c/topology/thread_siblings_list)"
done > $O/topology.txt
nvidia-smi -L > $O/gpu.txt 2>&1
W=$(mktemp -d)
LD_LIBRARY_PATH=$G .gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --output $W/u6.h5 --quiet
for r in 1 2; do
  for v in old new; do
    b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
    echo "== round $r $v"
    LD_LIBRARY_PATH=$lib timeout 120 .gpu/m2l_probe 1000000 32 16 10
  done
done > $O/m2l.txt 2>&1
for r in 1 2; do
  for v in old new; do
    b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
    LD_LIBRARY_PATH=$lib timeout 150 $b/mlfma2d_bench --rows p,a,g --json $O/bench-$v-$r.json > $O/bench-$v-$r.txt 2>&1
    LD_LIBRARY_PATH=$lib timeout 60 $b/mlfma2d --input $W/u6.h5 --backend cpu --ct 15 --eps 1e-10 --repeat 5 --report json > $O/ct15-$v-$r.json 2>/dev/null
    python3 -c "
import json; r=json.load(open('$O/ct15-$v-$r.json')); t=r['timings']; ts=sorted(r['totals'])
print('ct15 cpu $v $r: med %.2f far %.2f near %.2f p2m %.2f m2m %.2f m2l %.2f l2l %.2f l2p %.2f far_gflops %.1f' % (ts[len(ts)//2]*1e3, t['far']*1e3, t['near']*1e3, t['p2m']*1e3, t['m2m']*1e3, t['m2l']*1e3, t['l2l']*1e3, t['l2p']*1e3, r['far_gflops']))"
  done
done > $O/ct15.txt 2>&1
rm -rf $W
OUT=$O/ab-cpu ROUNDS=2 BACKEND=cpu timeout 120 bash scripts/gpu-ab "1e6:uniform,clusters" > $O/ab-cpu.log 2>&1
OUT=$O/ab ROUNDS=2 timeout 150 bash scripts/gpu-ab "1e6:uniform,clusters 1e7:uniform" > $O/ab.log 2>&1
for t in test_wide test_farfield; do
  LD_LIBRARY_PATH=$G timeout 120 .gpu/$t > $O/$t.txt 2>&1; echo "$t rc $?"
done > $O/tests.txt
cat $O/tests.txt $O/ct15.txt; grep -h "^lib\|^kind 31/96\|^kind 18/96\|== " $O/m2l.txt; grep -h "^p \|^a \|^g \|on .*cores" $O/bench-*.txt; tail -12 $O/ab-cpu.log $O/ab.log
rm -rf $O/cache* $O/ab*/cache-*
tar -czf $OUT/call.tgz -C $OUT w
