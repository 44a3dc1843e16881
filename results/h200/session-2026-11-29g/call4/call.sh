#!/usr/bin/env bash
# Device call 4 (2026-11-29g): the new build with the dipoles' moments computed straight into
# the staging buffers (NearFieldBackend::staging_buffers). The GPU tests of the changed code;
# MLFMA2D_TRACE of the defaults on 1e6 uniform charges + dipoles; bench row i new/old alternating
# (two rounds, 9 evaluations a row; old = main at 55a9c20); issue 22's rows against FMM2D
# (scripts/gpu-densities 1e6).
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
for t in test_gpu_shared test_mutual_layout test_gpu_backends test_densities test_wide; do
  timeout 120 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $?" | tee -a $O/w/tests.txt
  grep -E "^\[  PASSED|^\[  FAILED" $O/w/$t.log | head -3
done
timeout 60 .gpu/test_solver --gtest_filter='Backends.*' > $O/w/test_solver.log 2>&1; echo "test_solver Backends.* rc $?" | tee -a $O/w/tests.txt
stamp trace
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --sources both --output $W/ub.h5 --quiet
MLFMA2D_TRACE=1 MLFMA2D_CACHE_DIR=$W/cache timeout 60 .gpu/mlfma2d --input $W/ub.h5 --eps 1e-10 --repeat 10 > $O/w/trace-both.txt 2>&1
grep -E "trace:" $O/w/trace-both.txt | tail -8 | cut -c1-130
for r in 1 2; do
  for v in new old; do
    stamp "bench i $v $r"
    lib=$PWD/.gpu; bin=.gpu/mlfma2d_bench
    [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu && bin=.gpu/old/mlfma2d_bench
    LD_LIBRARY_PATH=$lib MLFMA2D_CACHE_DIR=$W/cache-$v timeout 150 $bin --rows i --densities-n 1000000 \
      --repeat 9 --sample 200 --json $O/w/bench_i_${v}_$r.json > $O/w/bench_i_${v}_$r.log 2>&1
    grep -E "^i[1-5] " $O/w/bench_i_${v}_$r.log | tail -5
  done
done
stamp densities
timeout 300 bash scripts/gpu-densities 1000000 > $O/w/densities.log 2>&1
mv $O/bench_i.json $O/bench_i.log $O/fmm2d.jsonl $O/densities.md $O/w/ 2>/dev/null
cat $O/w/densities.md
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
