#!/usr/bin/env bash
# Device call 6 (2026-11-29h): the 512-bit translation kernel on data as the library lays it out
# (columns 62 doubles apart, factors on 16 bytes, R on 32) against every column, factor and
# buffer on 64 bytes (ALIGN=1; kernel_probe.cpp), alternating, two rounds.
set -u
cd "$(dirname "$0")/.."
tar -xJf build-pack/b.txz -C build-pack
B=$PWD/build-pack/b
export LD_LIBRARY_PATH=$B
O=$OUT/w; mkdir -p $O
for r in 1 2; do
  for a in 0 1; do
    echo "== round $r ALIGN=$a 16 24 3"
    if [ $a = 1 ]; then ALIGN=1 $B/kernel_probe 16 24 3; else $B/kernel_probe 16 24 3; fi
  done
done > $O/kernel.txt 2>&1
ALIGN=1 $B/kernel_probe 1 24 3 > $O/kernel_one_aligned.txt 2>&1
tar -czf $OUT/call.tgz -C $OUT w
