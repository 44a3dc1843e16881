#!/usr/bin/env bash
# Device call 1 (2026-11-29h): where M2L's time goes on the H200 host (m2l_probe.cpp, main at 4f6e7c2).
set -u
cd "$(dirname "$0")/.."
tar -xJf build-pack/b.txz -C build-pack
B=$PWD/build-pack/b
export LD_LIBRARY_PATH=$B
O=$OUT/w; mkdir -p $O
lscpu > $O/lscpu.txt
$B/mlfma2d_bench --rows p --threads 16 > $O/peak.txt 2>&1
for r in 1 2; do
  for spec in "1000000 32 16 10" "100000 32 16 20" "1000000 32 1 3" "10000000 256 15 4" "1000000 32 8 10"; do
    echo "== round $r: $spec"; $B/m2l_probe $spec
  done
done > $O/probe.txt 2>&1
G0=1 $B/m2l_probe 1000000 32 16 10 > $O/probe_g0.txt 2>&1
tar -czf $OUT/call.tgz -C $OUT w
