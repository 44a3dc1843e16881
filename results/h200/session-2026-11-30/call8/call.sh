#!/usr/bin/env bash
# Device call 8 (2026-11-30, review): the solver-level GPU test now at 240000 points (2.16e6
# strengths: the far field takes them from the device) on the committed library plus the test
# change; then the same tests against a library whose copy back reads the caller-order strengths
# (d_in_) in place of the tree-order ones (d_tree_): they must fail.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
G=$PWD/.gpu
F='*SolverWithDensities*:*Solver*Within*:GpuShared.*'
LD_LIBRARY_PATH=$G timeout 200 .gpu/test_gpu_backends --gtest_filter="$F" > $O/good_backends.log 2>&1; echo "rc $?" >> $O/good_backends.log
LD_LIBRARY_PATH=$G timeout 60 .gpu/test_gpu_shared > $O/good_shared.log 2>&1; echo "rc $?" >> $O/good_shared.log
LD_LIBRARY_PATH=$G/mut:$G timeout 200 .gpu/test_gpu_backends --gtest_filter="$F" > $O/mutant_backends.log 2>&1; echo "rc $?" >> $O/mutant_backends.log
LD_LIBRARY_PATH=$G/mut:$G timeout 60 .gpu/test_gpu_shared > $O/mutant_shared.log 2>&1; echo "rc $?" >> $O/mutant_shared.log
for f in good_backends good_shared mutant_backends mutant_shared; do echo "== $f"; grep -E "^\[  (PASSED|FAILED|  OK|SKIPPED) |^rc" $O/$f.log | tail -8; done
rm -rf $O/cache
tar -czf $OUT/call.tgz -C $OUT w
