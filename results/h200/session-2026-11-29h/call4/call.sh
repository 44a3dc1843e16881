#!/usr/bin/env bash
# Device call 4 (2026-11-29h): the next tile's scaling inside the product (working tree) against
# main at 4f6e7c2 (old): the kernel per kind (kernel_probe "lib"), M2L in place (m2l_bench), the
# translation kernel row (mlfma2d_bench --rows p); old and new alternating, three rounds.
set -u
cd "$(dirname "$0")/.."
tar -xJf build-pack/b.txz -C build-pack
B=$PWD/build-pack/b
O=$OUT/w; mkdir -p $O
for r in 1 2 3; do
  for v in old new; do
    lib=$B; [ $v = old ] && lib=$B/old:$B
    echo "== $v round $r"
    LD_LIBRARY_PATH=$B $B/kernel_probe_$v 16 24 3 | grep " lib "
    for spec in "1000000 32 16 1 15" "10000000 256 15 1 5" "1000000 512 15 8 10" "1000000 32 1 1 3"; do
      echo "m2l $spec: $(LD_LIBRARY_PATH=$lib $B/m2l_bench $spec | tr '\n' ' ')"
    done
    LD_LIBRARY_PATH=$lib $B/mlfma2d_bench --rows p --threads 16 2>&1 | grep "^p .*translation" | head -1
  done
done > $O/ab.txt 2>&1
tar -czf $OUT/call.tgz -C $OUT w
