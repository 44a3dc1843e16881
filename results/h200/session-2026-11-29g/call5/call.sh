#!/usr/bin/env bash
# Device call 5 (2026-11-29g): main at e6acfb5 (the final code of the session): every test
# binary (.gpu/run.sh) and --verify of the defaults on 1e6 uniform charges + dipoles with the
# field and the Hessian.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
stamp tests
OUT=$O/w/run timeout 400 bash .gpu/run.sh > $O/w/run.log 2>&1; echo "run.sh rc $?"
grep -cE "rc 0 " $O/w/run.log; grep -E "rc [1-9]" $O/w/run.log | head
stamp verify
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --sources both --output $W/ub.h5 --quiet
MLFMA2D_CACHE_DIR=$W/cache timeout 90 .gpu/mlfma2d --input $W/ub.h5 --eps 1e-10 --field --hessian --verify --repeat 5 > $O/w/verify-both.txt 2>&1
grep -E "auto  |verif|rel|total per|near total|far total" $O/w/verify-both.txt | head -12
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
