#!/usr/bin/env bash
# Device call 1 (2026-11-29c): the translations' scalings fused around their product. Old =
# main at a58db13 (.gpu/old), new = the working tree (.gpu). .gpu/m2l_bench: ../m2l_bench.cpp.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
nproc > $O/w/host.txt; lscpu >> $O/w/host.txt 2>&1
stamp tests
for t in test_wide test_farfield test_densities; do
  timeout 300 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $? $(tail -1 $O/w/$t.log)"
done
stamp m2l
for r in 1 2; do
  for v in old new; do
    lib=$PWD/.gpu; [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu
    for spec in "1000000 32 16 1 15" "1000000 512 15 8 15" "1000000 32 16 8 5"; do
      echo "$v round $r: $spec $(LD_LIBRARY_PATH=$lib .gpu/m2l_bench $spec | tr '\n' ' ')"
    done
  done
done | tee $O/w/m2l.log
stamp peak
for v in old new; do
  lib=$PWD/.gpu; b=.gpu/mlfma2d_bench
  [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu && b=.gpu/old/mlfma2d_bench
  LD_LIBRARY_PATH=$lib $b --rows p --json $O/w/peak-$v.json > $O/w/peak-$v.log 2>&1
  grep -E "^p " $O/w/peak-$v.log | tail -3 | sed "s/^/$v /"
done
stamp cpu-ab
OUT=$O/w/cpu BACKEND=cpu ROUNDS=2 REPEAT=5 bash scripts/gpu-ab "1e6:uniform,clusters" > $O/w/cpu.log 2>&1
cat $O/w/cpu.log
stamp defaults-ab
OUT=$O/w/e10 ROUNDS=2 REPEAT=10 bash scripts/gpu-ab "1e6:uniform,circle,graded-polygon,clusters 1e7:uniform,clusters" > $O/w/e10.log 2>&1
cat $O/w/e10.log
stamp phases
OUT=$O/w/phases-new bash scripts/gpu-phases > $O/w/phases-new.log 2>&1
MLFMA2D_BIN=.gpu/old/mlfma2d LD_LIBRARY_PATH=$PWD/.gpu/old OUT=$O/w/phases-old bash scripts/gpu-phases > $O/w/phases-old.log 2>&1
cat $O/w/phases-new/phases.md $O/w/phases-old/phases.md
stamp trace
W=$(mktemp -d)
.gpu/mlfma2d generate --shape uniform --n 1e6 --densities 8 --seed 1 --output $W/u8.h5 --quiet
MLFMA2D_CACHE_DIR=$W/c MLFMA2D_TRACE=1 .gpu/mlfma2d --input $W/u8.h5 --eps 1e-10 --repeat 3 --report json > $O/w/trace8.json 2> $O/w/trace8.txt
grep -E "far|evaluation" $O/w/trace8.txt | tail -6
stamp rows-i
MLFMA2D_CACHE_DIR=$O/w/bench-cache timeout 200 .gpu/mlfma2d_bench --rows i --densities-n 1000000 --repeat 15 --json $O/w/rows_i.json > $O/w/rows_i.log 2>&1
grep -E "^i[1-5] " $O/w/rows_i.log | head -5
stamp sets
OUT=$O/w/sets bash scripts/gpu-sets 1e6 > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp done
rm -rf $O/w/*/cache-* $O/w/bench-cache
tar -czf $O/call.tgz -C $O w
