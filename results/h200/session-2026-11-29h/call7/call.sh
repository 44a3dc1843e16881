#!/usr/bin/env bash
# Device call 7 (2026-11-29h): the expansions on 64 bytes in whole cache lines (working tree)
# against main at 4f6e7c2 (.gpu/old): M2L alone (m2l_bench, three rounds alternating), the
# translation kernel's row, per evaluation at the defaults and CPU only (scripts/gpu-ab).
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
stamp m2l
for r in 1 2 3; do
  for v in old new; do
    b=.gpu; lib=$PWD/.gpu; [ $v = old ] && b=.gpu/old && lib=$PWD/.gpu/old:$PWD/.gpu
    for spec in "1000000 32 16 1 15" "10000000 256 15 1 5" "1000000 512 15 8 10"; do
      echo "$v round $r: $spec $(LD_LIBRARY_PATH=$lib $b/m2l_bench $spec | tr '\n' ' ')"
    done
  done
done > $O/m2l.log 2>&1
stamp rows_p
for v in old new; do
  b=.gpu; lib=$PWD/.gpu; [ $v = old ] && b=.gpu/old && lib=$PWD/.gpu/old:$PWD/.gpu
  echo "$v: $(LD_LIBRARY_PATH=$lib $b/mlfma2d_bench --rows p --threads 16 2>&1 | grep '^p ' | tr '\n' ' ')"
done > $O/rows_p.log 2>&1
stamp gpu-ab
OUT=$O/ab_gpu ROUNDS=2 bash scripts/gpu-ab "1e6:uniform,clusters 1e7:uniform" > $O/ab_gpu.log 2>&1
stamp gpu-ab-cpu
OUT=$O/ab_cpu ROUNDS=2 BACKEND=cpu bash scripts/gpu-ab "1e6:uniform,clusters" > $O/ab_cpu.log 2>&1
stamp done
rm -rf $O/cache
tar -czf $OUT/call.tgz -C $OUT w
