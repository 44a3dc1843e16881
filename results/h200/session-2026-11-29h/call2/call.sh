#!/usr/bin/env bash
# Device call 2 (2026-11-29h): the 512-bit translation kernel's parts (kernel_probe.cpp, main at 4f6e7c2).
set -u
cd "$(dirname "$0")/.."
tar -xJf build-pack/b.txz -C build-pack
B=$PWD/build-pack/b
export LD_LIBRARY_PATH=$B
O=$OUT/w; mkdir -p $O
for spec in "1 24 5" "16 24 5" "1 96 5" "16 96 5"; do
  echo "== $spec"; $B/kernel_probe $spec
done > $O/kernel.txt 2>&1
tar -czf $OUT/call.tgz -C $OUT w
