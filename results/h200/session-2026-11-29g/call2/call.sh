#!/usr/bin/env bash
# Device call 2 (2026-11-29g): old = main at 55a9c20 (.gpu/old), new = the mutual path for
# dipoles and Hessians (shared), the cpu back end's Hessian both ways. The GPU tests of the path
# and the width tests; bench row i old/new alternating (two rounds, 9 evaluations a row).
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
nvidia-smi -L > $O/w/host.txt; lscpu | grep -E "Model name|^CPU\(s\)|L2|L3" >> $O/w/host.txt
stamp tests
for t in test_gpu_shared test_mutual_layout test_wide test_gpu_backends test_densities; do
  timeout 120 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $?" | tee -a $O/w/tests.txt
  grep -E "PASSED|FAILED|SKIPPED \]" $O/w/$t.log | head -5
done
timeout 60 .gpu/test_solver --gtest_filter='Backends.*' > $O/w/test_solver.log 2>&1; echo "test_solver Backends.* rc $?" | tee -a $O/w/tests.txt
for r in 1 2; do
  for v in old new; do
    stamp "bench i $v $r"
    lib=$PWD/.gpu; bin=.gpu/mlfma2d_bench
    [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu && bin=.gpu/old/mlfma2d_bench
    LD_LIBRARY_PATH=$lib MLFMA2D_CACHE_DIR=$W/cache-$v timeout 150 $bin --rows i --densities-n 1000000 \
      --repeat 9 --sample 200 --json $O/w/bench_i_${v}_$r.json > $O/w/bench_i_${v}_$r.log 2>&1
    grep -E "^i[1-5] " $O/w/bench_i_${v}_$r.log | tail -5
  done
done
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
