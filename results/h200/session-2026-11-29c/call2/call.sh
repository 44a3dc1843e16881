#!/usr/bin/env bash
# Device call 2 (2026-11-29c): every test binary of the working tree's build (.gpu/run.sh), and
# the M2L A/B again (old = main at a58db13 in .gpu/old), three rounds.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
stamp m2l
for r in 1 2 3; do
  for v in old new; do
    lib=$PWD/.gpu; [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu
    for spec in "1000000 32 16 1 15" "10000000 256 15 1 5"; do
      echo "$v round $r: $spec $(LD_LIBRARY_PATH=$lib .gpu/m2l_bench $spec | tr '\n' ' ')"
    done
  done
done | tee $O/w/m2l.log
stamp run.sh
OUT=$O/w/run bash .gpu/run.sh > $O/w/run.log 2>&1
grep -E "^test_" $O/w/run.log | awk '{print $1, $2, $3}' | tr '\n' ';'; echo
grep -E "rc [1-9]|FAILED" $O/w/run.log | head -20
stamp done
(cd $O/w/run && tar -xzf results.tar.gz 2>/dev/null; rm -rf tests bench)
tar -czf $O/call.tgz -C $O w
