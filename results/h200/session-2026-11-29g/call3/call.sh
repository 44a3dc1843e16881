#!/usr/bin/env bash
# Device call 3 (2026-11-29g): the new build (main with the mutual path for dipoles and
# Hessians, and the cpu back end's Hessian both ways): every test binary (.gpu/run.sh); issue
# 22's rows i against FMM2D (scripts/gpu-densities 1e6); MLFMA2D_TRACE of the defaults on 1e6
# uniform points with charges + dipoles (row i3's shape) and with charges alone (i1's).
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
stamp tests
OUT=$O/w/run timeout 330 bash .gpu/run.sh > $O/w/run.log 2>&1; echo "run.sh rc $?"
grep -E "rc [0-9]" $O/w/run.log | awk '{print $1, $2, $3}' | sort -k3 | uniq -c -f2 | head; grep -E "rc [1-9]" $O/w/run.log | head
stamp traces
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --sources both --output $W/ub.h5 --quiet
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --output $W/u.h5 --quiet
MLFMA2D_TRACE=1 MLFMA2D_CACHE_DIR=$W/cache timeout 60 .gpu/mlfma2d --input $W/ub.h5 --eps 1e-10 --repeat 10 > $O/w/trace-both.txt 2>&1
MLFMA2D_TRACE=1 MLFMA2D_CACHE_DIR=$W/cache timeout 60 .gpu/mlfma2d --input $W/u.h5 --eps 1e-10 --repeat 10 > $O/w/trace-charges.txt 2>&1
stamp densities
timeout 300 bash scripts/gpu-densities 1000000 > $O/w/densities.log 2>&1
mv $O/bench_i.json $O/bench_i.log $O/fmm2d.jsonl $O/densities.md $O/w/ 2>/dev/null
cat $O/w/densities.md
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
