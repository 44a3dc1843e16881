#!/usr/bin/env bash
# Device call 7 (2026-11-29f): the review's change (the mutual path takes the targets'
# permutation from the charge path instead of a second upload; NearFieldProblem::self() asks for
# one permutation). The shared back end's tests, the back-end tests, determinism, one 1e6 run.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
for t in test_gpu_shared test_mutual_layout test_gpu_backends test_fast_layout; do
  timeout 200 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $?" | tee -a $O/w/tests.log
  grep -E "PASSED|FAILED" $O/w/$t.log | tail -3
done
W=$(mktemp -d)
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --output $W/u.h5 --quiet
MLFMA2D_CACHE_DIR=$W/cache timeout 60 .gpu/mlfma2d --input $W/u.h5 --eps 1e-10 --repeat 10 --verify > $O/w/uniform.txt 2>&1
grep -E "device memory|total per|near kernel|verif" $O/w/uniform.txt
cd $O && tar -czf call.tgz w && rm -rf w
