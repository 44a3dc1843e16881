#!/usr/bin/env bash
# Device call 3 (2026-11-29i): the evaluation's permutations, the library's blocked two passes
# against one direct loop, on a random permutation of 1e6, 1e7 and 1e8 elements, 15 and 16
# threads (perm_probe.cpp; the library of the working tree).
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export LD_LIBRARY_PATH=$PWD/.gpu
for r in 1 2; do
  for spec in "1000000 15 10" "10000000 15 5" "100000000 15 3" "10000000 16 5"; do
    echo "round $r: $(.gpu/perm_probe $spec)"
  done
done > $O/perm.log 2>&1
cat $O/perm.log
tar -czf $OUT/call.tgz -C $OUT w
