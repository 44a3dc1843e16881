#!/usr/bin/env bash
# Device call 1 (2026-11-29i): the point operators' new kernels (Horner of several polynomials in
# one pass, the lanes' sums by shuffles, 1/k once) against main at 8b5ec0f (.gpu/old): P2M and
# L2P alone (point_probe, three rounds alternating), M2L alone (m2l_bench), per evaluation at the
# defaults and CPU only (scripts/gpu-ab), the far field's tests at both widths.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
lscpu > $O/lscpu.txt
stamp tests
export LD_LIBRARY_PATH=$PWD/.gpu
for t in test_wide test_farfield test_densities test_solver test_outputs test_determinism test_unusual; do
  .gpu/$t > $O/$t.log 2>&1; echo "$t rc $?" >> $O/tests.txt
  MLFMA2D_VECTOR_BITS=256 .gpu/$t > $O/$t-256.log 2>&1; echo "$t (256) rc $?" >> $O/tests.txt
done
stamp point
for r in 1 2 3; do
  for v in old new; do
    lib=$PWD/.gpu; [ $v = old ] && lib=$PWD/.gpu/old:$PWD/.gpu
    for spec in "1000000 32 16 15" "1000000 512 15 15" "1000000 512 15 10 4"; do
      echo "$v round $r: $(LD_LIBRARY_PATH=$lib .gpu/point_probe_$v $spec)"
    done
  done
done > $O/point.log 2>&1
stamp rows_p
for v in old new; do
  b=.gpu; lib=$PWD/.gpu; [ $v = old ] && b=.gpu/old && lib=$PWD/.gpu/old:$PWD/.gpu
  echo "$v: $(LD_LIBRARY_PATH=$lib $b/mlfma2d_bench --rows p --threads 16 2>&1 | grep '^p ' | tr '\n' ' ')"
done > $O/rows_p.log 2>&1
stamp gpu-ab
OUT=$O/ab_gpu ROUNDS=2 bash scripts/gpu-ab "1e6:uniform,clusters 1e7:uniform" > $O/ab_gpu.log 2>&1
stamp gpu-ab-cpu
OUT=$O/ab_cpu ROUNDS=2 BACKEND=cpu bash scripts/gpu-ab "1e6:uniform,clusters" > $O/ab_cpu.log 2>&1
stamp gpu-ab-field
OUT=$O/ab_field ROUNDS=2 EXTRA=--field bash scripts/gpu-ab "1e6:uniform" > $O/ab_field.log 2>&1
stamp reports
W=$(mktemp -d)
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --output $W/u6.h5 --quiet
for v in old new; do
  b=.gpu; lib=$PWD/.gpu; [ $v = old ] && b=.gpu/old && lib=$PWD/.gpu/old:$PWD/.gpu
  for be in cpu default; do
    args=(); [ $be = cpu ] && args=(--backend cpu)
    LD_LIBRARY_PATH=$lib $b/mlfma2d --input $W/u6.h5 --eps 1e-10 --repeat 10 "${args[@]}" --report json > $O/report-$v-$be.json 2>/dev/null
  done
done
rm -rf $W
stamp done
rm -rf $O/cache
tar -czf $OUT/call.tgz -C $OUT w
