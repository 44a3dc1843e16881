#!/usr/bin/env bash
# Device call 5 (2026-11-29c): the final code (call 4's bundle): every test binary
# (.gpu/run.sh), and 1e8 uniform points at eps 1e-6, old (a58db13) against new, one round.
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
stamp e6
OUT=$O/w/e6 EPS=1e-6 ROUNDS=1 REPEAT=3 timeout 150 bash scripts/gpu-ab "1e8:uniform" > $O/w/e6.log 2>&1
cat $O/w/e6.log
stamp done
rm -rf $O/w/*/cache-*
(cd $O/w/run && tar -xzf results.tar.gz 2>/dev/null; rm -rf tests bench)
tar -czf $O/call.tgz -C $O w
