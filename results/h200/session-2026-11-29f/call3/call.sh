#!/usr/bin/env bash
# Device call 3 (2026-11-29f): main at e5a4d3e (the shared back end's mutual path).
# scripts/gpu-sets 1e6 twice (FMM2D both builds, bound and unbound); 1e8 uniform eps 1e-6 at the
# defaults (3 evaluations); MLFMA2D_TRACE on 1e6 uniform (the far field's steps).
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
for r in 1 2; do
  stamp sets$r
  OUT=$O/w/sets$r timeout 200 bash scripts/gpu-sets 1e6 > $O/w/sets$r.log 2>&1
  cat $O/w/sets$r/sets.md
done
stamp trace
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --output $W/u.h5 --quiet
MLFMA2D_TRACE=1 MLFMA2D_CACHE_DIR=$W/cache timeout 60 .gpu/mlfma2d --input $W/u.h5 --eps 1e-10 --repeat 10 > $O/w/trace-uniform.txt 2>&1
grep -E "far:|near|evaluation" $O/w/trace-uniform.txt | tail -12
stamp 1e8
.gpu/mlfma2d generate --shape uniform --n 1e8 --seed 1 --output $W/u8.h5 --quiet
MLFMA2D_CACHE_DIR=$W/cache timeout 150 .gpu/mlfma2d --input $W/u8.h5 --eps 1e-6 --repeat 3 > $O/w/uniform-1e8.txt 2>&1
grep -E "auto|time |CT|far total|near total|total per|near kernel|device memory" $O/w/uniform-1e8.txt
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
