#!/usr/bin/env bash
# Device call 8 (2026-11-29b): the final build (main at its HEAD, the code of 5166aa6). Every test
# binary (.gpu/run.sh); FMM2D at 1e6; rows i; defaults old/new at 1e6, 1e7 and 1e8 (eps 1e-6);
# CPU only old/new.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
stamp run.sh
OUT=$O/w/run bash .gpu/run.sh > $O/w/run.log 2>&1
grep -E "^test_" $O/w/run.log | awk '{print $1, $2, $3}' | tr '\n' ';'; echo
grep -E "rc [1-9]|FAILED" $O/w/run.log | head -20
stamp sets
OUT=$O/w/sets bash scripts/gpu-sets 1e6 > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp rows-i
MLFMA2D_CACHE_DIR=$O/w/bench-cache timeout 200 .gpu/mlfma2d_bench --rows i --densities-n 1000000 --repeat 15 --json $O/w/rows_i.json > $O/w/rows_i.log 2>&1
grep -E "^i[1-5] " $O/w/rows_i.log | head -5
stamp defaults-ab
OUT=$O/w/e10 ROUNDS=2 REPEAT=10 bash scripts/gpu-ab "1e6:uniform,circle,graded-polygon,clusters 1e7:uniform,graded-polygon,clusters" > $O/w/e10.log 2>&1
cat $O/w/e10.log
stamp cpu-ab
OUT=$O/w/cpu BACKEND=cpu ROUNDS=2 REPEAT=5 bash scripts/gpu-ab "1e6:uniform,clusters" > $O/w/cpu.log 2>&1
cat $O/w/cpu.log
stamp e6
OUT=$O/w/e6 EPS=1e-6 ROUNDS=1 REPEAT=3 timeout 120 bash scripts/gpu-ab "1e8:uniform" > $O/w/e6.log 2>&1
cat $O/w/e6.log
stamp done
rm -rf $O/w/*/cache-* $O/w/bench-cache
(cd $O/w/run && tar -xzf results.tar.gz 2>/dev/null; rm -rf tests bench)
tar -czf $O/call.tgz -C $O w
