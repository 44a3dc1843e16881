#!/usr/bin/env bash
# Device call 11 (2026-11-29h): the scaling after adding a run of columns with one output in
# registers (m: the working tree) against d267c7c (a: whole cache lines alone), M2L alone
# (m2l_bench), alternating, three rounds.
set -u
cd "$(dirname "$0")/.."
tar -xJf build-pack/b.txz -C build-pack
B=$PWD/build-pack/b
O=$OUT/w; mkdir -p $O
for r in 1 2 3; do
  for v in a m; do
    for spec in "1000000 32 16 1 15" "10000000 256 15 1 5" "1000000 512 15 8 10" "1000000 32 1 1 3"; do
      echo "$v round $r: $spec $(LD_LIBRARY_PATH=$B/$v:$B $B/m2l_bench $spec | tr '\n' ' ')"
    done
  done
done > $O/m2l.log 2>&1
tar -czf $OUT/call.tgz -C $OUT w
