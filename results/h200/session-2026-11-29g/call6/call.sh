#!/usr/bin/env bash
# Device call 6 (2026-11-29g): after the review (the tests' same-bits check once,
# testing::expect_identical; Solver::evaluate asks every back end for staging buffers): the GPU
# tests it touches, and the densities' and solver's.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
for t in test_gpu_shared test_gpu_backends test_densities test_mutual_layout; do
  timeout 150 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $?" | tee -a $O/w/tests.txt
  grep -E "^\[  PASSED|^\[  FAILED" $O/w/$t.log | head -3
done
timeout 90 .gpu/test_solver > $O/w/test_solver.log 2>&1; echo "test_solver rc $?" | tee -a $O/w/tests.txt
cd $O && tar -czf call.tgz w && rm -rf w
