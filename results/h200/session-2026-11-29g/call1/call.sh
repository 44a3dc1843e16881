#!/usr/bin/env bash
# Device call 1 (2026-11-29g): main at 55a9c20 (no code change): issue 22's rows i against
# FMM2D (scripts/gpu-densities 1e6), the FMA peak probe (bench row p), the CPU-only and default
# paths at 1e6 uniform, nd = 1 and 8, eps 1e-10: their phases (the far field's flops against the
# peak: the bound on i2).
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
nvidia-smi -L > $O/w/host.txt; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|L2|L3" >> $O/w/host.txt
stamp peak
.gpu/mlfma2d_bench --rows p --json $O/w/bench_p.json > $O/w/bench_p.log 2>&1; tail -4 $O/w/bench_p.log
stamp phases
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --output $W/u.h5 --quiet
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --densities 8 --output $W/u8.h5 --quiet
for spec in "u cpu" "u auto" "u8 cpu" "u8 auto"; do
  set -- $spec
  MLFMA2D_CACHE_DIR=$W/cache timeout 90 .gpu/mlfma2d --input $W/$1.h5 --eps 1e-10 --backend $2 --repeat 10 > $O/w/phases-$1-$2.txt 2>&1
  echo "-- $1 $2"; grep -E "tree  |far field|near field|far total|near total|total per|M2L  |P2M  |L2P  " $O/w/phases-$1-$2.txt
done
MLFMA2D_TRACE=1 MLFMA2D_CACHE_DIR=$W/cache timeout 60 .gpu/mlfma2d --input $W/u.h5 --eps 1e-10 --backend cpu --repeat 5 > $O/w/trace-u-cpu.txt 2>&1
stamp densities
timeout 420 bash scripts/gpu-densities 1000000 > $O/w/densities.log 2>&1
mv $O/bench_i.json $O/bench_i.log $O/fmm2d.jsonl $O/densities.md $O/w/ 2>/dev/null
cat $O/w/densities.md
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
