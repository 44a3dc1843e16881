#!/usr/bin/env bash
# Device call 2 (2026-11-29i): the working tree (point operators: Horner of several polynomials,
# copies by vectors, lane sums by shuffles, 1/k once, K = 4 powers a block at 512 bits for a lone
# group: variant A) against main at 8b5ec0f (old) and two variants of the power sums' block (B: K =
# 3 everywhere, C: K = 6 for one channel); P2M and L2P alone (point_probe, three rounds); the
# far field's trace at 1e7; the bench's rows a, b, g, p; the whole GPU suite (.gpu/run.sh).
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
G=$PWD/.gpu
stamp point
for r in 1 2 3; do
  for v in old A B C; do
    case $v in old) lib=$G/old:$G; b=old;; A) lib=$G; b=new;; *) lib=$G/var$v:$G; b=new;; esac
    for spec in "1000000 32 16 15" "1000000 512 15 15" "10000000 256 15 5"; do
      echo "$v round $r: $(LD_LIBRARY_PATH=$lib $G/point_probe_$b $spec)"
    done
  done
done > $O/point.log 2>&1
export LD_LIBRARY_PATH=$G
stamp trace
W=$(mktemp -d)
.gpu/mlfma2d generate --shape uniform --n 1e7 --seed 1 --output $W/u7.h5 --quiet
for v in old new; do
  b=.gpu; lib=$G; [ $v = old ] && b=.gpu/old && lib=$G/old:$G
  LD_LIBRARY_PATH=$lib MLFMA2D_TRACE=1 $b/mlfma2d --input $W/u7.h5 --eps 1e-10 --repeat 5 --report json > $O/report7-$v.json 2> $O/trace7-$v.txt
  LD_LIBRARY_PATH=$lib $b/mlfma2d --input $W/u7.h5 --eps 1e-10 --repeat 5 --backend cpu --report json > $O/report7-cpu-$v.json 2>/dev/null
done
rm -rf $W
stamp bench
.gpu/mlfma2d_bench --rows a,b,g,p --json $O/bench-new.json > $O/bench-new.txt 2>&1
LD_LIBRARY_PATH=$G/old:$G .gpu/old/mlfma2d_bench --rows a,b,g,p --json $O/bench-old.json > $O/bench-old.txt 2>&1
stamp suite
OUT=$O/suite bash .gpu/run.sh > $O/suite.log 2>&1
stamp done
rm -rf $O/cache
tar -czf $OUT/call.tgz -C $OUT w
