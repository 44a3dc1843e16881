#!/usr/bin/env bash
# Device call 10 (2026-11-29h): where M2L's time goes with the expansions on whole cache lines
# (m2l_probe.cpp against the working tree's library, as call 1 did for main at 4f6e7c2).
set -u
cd "$(dirname "$0")/.."
tar -xJf build-pack/b.txz -C build-pack
B=$PWD/build-pack/b
export LD_LIBRARY_PATH=$B
O=$OUT/w; mkdir -p $O
for r in 1 2; do
  for spec in "1000000 32 16 10" "1000000 32 1 3"; do
    echo "== round $r: $spec"; $B/m2l_probe $spec
  done
done > $O/probe.txt 2>&1
tar -czf $OUT/call.tgz -C $OUT w
