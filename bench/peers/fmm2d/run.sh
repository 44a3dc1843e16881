#!/usr/bin/env bash
# Runs one FMM2D driver build from the folder this script sits in (.fmm2d/, where build.sh copies
# it): FMM2D_BENCH=v3|v4 (default v3) picks driver_$FMM2D_BENCH; --threads T sets OMP_NUM_THREADS
# (and is passed on); FMM2D_BIND=none|spread its threads' placement (below); lib/ beside it
# (libgomp, ...) goes first on LD_LIBRARY_PATH.
#   FMM2D_BENCH=v4 .fmm2d/run.sh IN.bin OUT.bin --nd 1 --eps 1e-10 --charges 1 --dipoles 0 \
#     --pgh 1 --repeat 3 --threads 16 | tail -1
# The last line of stdout is the driver's JSON object (driver.f90 says what it holds).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${FMM2D_BENCH:-v3}
driver=$here/driver_$build
if [ ! -x "$driver" ]; then
  echo "run.sh: $driver not found (FMM2D_BENCH=$build; builds: $(cd "$here" && ls driver_* 2>/dev/null | tr '\n' ' '))" >&2
  exit 2
fi
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[i]}" = "--threads" ] && [ $((i + 1)) -lt ${#args[@]} ]; then
    export OMP_NUM_THREADS=${args[i + 1]}
  fi
done
# FMM2D_BIND=spread binds its threads one a core (OMP_PROC_BIND=spread, OMP_PLACES=cores, as
# mlfma2d places its own); none (the default) leaves them where the OpenMP runtime puts them.
# Neither is faster everywhere (results/h200/session-2026-11-29e/call4): take the faster.
case ${FMM2D_BIND:-none} in
  none) unset OMP_PROC_BIND OMP_PLACES ;;
  spread) export OMP_PROC_BIND=spread OMP_PLACES=cores ;;
  *)
    echo "run.sh: FMM2D_BIND=$FMM2D_BIND: none or spread" >&2
    exit 2
    ;;
esac
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$driver" "$@" --build "$build"
