#!/usr/bin/env bash
# Device call 5 (2026-11-29h): the 512-bit translation kernel's parts, each left out or changed
# (kernel_probe.cpp; "lib" = the working tree's kernel with the next tile's scaling in the product).
set -u
cd "$(dirname "$0")/.."
tar -xJf build-pack/b.txz -C build-pack
B=$PWD/build-pack/b
export LD_LIBRARY_PATH=$B
O=$OUT/w; mkdir -p $O
for spec in "16 24 5" "1 24 5" "16 24 5"; do
  echo "== $spec"; $B/kernel_probe $spec
done > $O/kernel.txt 2>&1
tar -czf $OUT/call.tgz -C $OUT w
