#!/usr/bin/env bash
# Device call 6 (2026-11-29f): main at db65751 (the GPU tests' helpers in tests/gpu_test_util.hpp,
# GpuShared.EveryGroupKind moved into tests/test_gpu_shared.cpp). The shared back end's tests and
# the back-end tests.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
for t in test_gpu_shared test_mutual_layout test_gpu_backends test_fast_layout; do
  timeout 200 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $?" | tee -a $O/w/tests.log
  grep -E "PASSED|FAILED|SKIPPED \]" $O/w/$t.log | tail -4
done
cd $O && tar -czf call.tgz w && rm -rf w
