#!/usr/bin/env bash
# Device call 7 (2026-11-29e): M2L's prefetch distance. .gpu/pf/D = 98036ea's library (no CUDA)
# with WideKernels::translate asking for the columns of the tile D tiles ahead (D = 1: main).
# m2l_bench (results/h200/session-2026-11-29c/m2l_bench.cpp): N CT THREADS ND RUNS.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
for r in 1 2 3; do
  for args in "1000000 32 16 1 10" "10000000 256 15 1 5" "1000000 512 15 8 10"; do
    for d in 1 2 3 5; do
      echo "pf $d round $r args $args: $(LD_LIBRARY_PATH=$PWD/.gpu/pf/$d:$PWD/.gpu timeout 100 .gpu/m2l_bench $args | tail -1)" | tee -a $O/w/m2l.log
    done
  done
done
tar -czf $O/call.tgz -C $O w
