#!/usr/bin/env bash
# Device call 3 (2026-11-29c): M2L alone, four libraries, four rounds alternating: old = main at
# a58db13 (.gpu/old), head = 2936885 (the fused translations, .gpu/h), new = the working tree
# (the scaling after on planes, .gpu), u1 = new without M2L's prefetch of the next target's
# sources (.gpu/u1). Then the CPU-only path and the defaults, old against new.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
stamp tests
for t in test_wide test_farfield; do
  timeout 300 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $? $(tail -1 $O/w/$t.log)"
done
stamp m2l
for r in 1 2 3 4; do
  for v in old h new u1; do
    lib=$PWD/.gpu; [ $v != new ] && lib=$PWD/.gpu/$v:$PWD/.gpu
    for spec in "1000000 32 16 1 15" "10000000 256 15 1 5" "1000000 512 15 8 15"; do
      echo "$v round $r: $spec $(LD_LIBRARY_PATH=$lib .gpu/m2l_bench $spec | tail -1)"
    done
  done
done | tee $O/w/m2l.log
stamp cpu-ab
OUT=$O/w/cpu BACKEND=cpu ROUNDS=3 REPEAT=5 bash scripts/gpu-ab "1e6:uniform,clusters" > $O/w/cpu.log 2>&1
cat $O/w/cpu.log
stamp defaults-ab
OUT=$O/w/e10 ROUNDS=2 REPEAT=10 bash scripts/gpu-ab "1e6:uniform,clusters 1e7:uniform,clusters" > $O/w/e10.log 2>&1
cat $O/w/e10.log
stamp done
tar -czf $O/call.tgz -C $O w
