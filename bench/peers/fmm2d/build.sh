#!/usr/bin/env bash
# Builds the FMM2D benchmark drivers into .fmm2d/ of the repository (ignored by git):
#   bash bench/peers/fmm2d/build.sh /work/.mirror/flatironinstitute+fmm2d/repo [OUTDIR]
# The argument is the git directory of a snapshot of flatironinstitute/fmm2d (the fetch tool's
# copy, or any clone's .git). Its HEAD is extracted into a temporary work tree, FMM2D's static
# library is built with its own makefile twice (make.inc overriding FFLAGS: -march=x86-64-v3 and
# -march=x86-64-v4, else FMM2D's defaults: -fPIC -O3 -funroll-loops -std=legacy -w -fopenmp),
# and driver.f90 is linked against each into driver_v3 and driver_v4 (libgfortran, libquadmath
# and libgcc static; libgomp, the one shared library left besides glibc, copied into lib/), for
# hosts without compilers (the GPU host: Ubuntu 24.04). run.sh and to_bin.py are copied beside
# them; BUILD.txt records the snapshot's commit, the compiler and the flags.
# Environment: FC (default gfortran), JOBS (default nproc), KEEP=1 keeps the temporary tree.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
src=${1:?usage: build.sh FMM2D_GIT_DIR [OUTDIR]}
out=${2:-$root/.fmm2d}
FC=${FC:-gfortran}
jobs=${JOBS:-$(nproc)}
base_flags="-fPIC -O3 -funroll-loops -std=legacy -w"   # FMM2D's makefile defaults less -march=native
omp_flags="-fopenmp"

[ -d "$src" ] || { echo "build.sh: $src is not a directory" >&2; exit 2; }
commit=$(git --git-dir="$src" rev-parse HEAD)
subject=$(git --git-dir="$src" log -1 --format='%ad %s' --date=short HEAD)
work=$(mktemp -d)
if [ "${KEEP:-0}" = 1 ]; then echo "build.sh: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$out/lib"

for v in v3 v4; do
  tree=$work/fmm2d_$v
  mkdir -p "$tree"
  git --git-dir="$src" archive HEAD | tar -x -C "$tree"
  cat > "$tree/make.inc" <<EOF
FC=$FC
FFLAGS=$base_flags -march=x86-64-$v
OMPFLAGS=$omp_flags
EOF
  echo "build.sh: FMM2D $commit, -march=x86-64-$v: building lib-static/libfmm2d.a"
  (cd "$tree" && make -j"$jobs" libfmm2d.a > "$work/make_$v.log" 2>&1) ||
    { tail -30 "$work/make_$v.log" >&2; echo "build.sh: make failed ($work/make_$v.log)" >&2; exit 1; }
  lib=$tree/lib-static/libfmm2d.a
  [ -f "$lib" ] || { echo "build.sh: $lib not built" >&2; exit 1; }
  mkdir -p "$work/obj_$v"
  "$FC" -O3 -march=x86-64-$v $omp_flags -J "$work/obj_$v" -c "$here/driver.f90" -o "$work/obj_$v/driver.o"
  "$FC" $omp_flags -static-libgfortran -static-libgcc -o "$out/driver_$v" "$work/obj_$v/driver.o" \
    "$lib" -lm
  echo "build.sh: wrote $out/driver_$v"
done

# The shared libraries the drivers still need, glibc's aside, go into lib/.
rm -f "$out"/lib/*
for v in v3 v4; do
  ldd "$out/driver_$v" | awk '/=> \// {print $1, $3}'
done | sort -u | while read -r name path; do
  case $name in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|linux-vdso*) ;;
    *) cp -L "$path" "$out/lib/$name"; echo "build.sh: copied $path to $out/lib/$name" ;;
  esac
done

cp "$here/run.sh" "$here/to_bin.py" "$out/"
chmod +x "$out/run.sh" "$out/to_bin.py" "$out"/driver_v3 "$out"/driver_v4
{
  echo "FMM2D benchmark drivers (bench/peers/fmm2d/build.sh), built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "snapshot: flatironinstitute/fmm2d $commit ($subject), from $src"
  echo "compiler: $("$FC" --version | head -1)"
  echo "libfmm2d.a: FMM2D's makefile, target libfmm2d.a, make.inc: FC=$FC FFLAGS=\"$base_flags -march=x86-64-{v3,v4}\" OMPFLAGS=$omp_flags"
  echo "driver: $FC -O3 -march=x86-64-{v3,v4} $omp_flags driver.f90; linked $omp_flags -static-libgfortran -static-libgcc libfmm2d.a -lm"
  echo "driver sources: bench/peers/fmm2d/driver.f90 sha256 $(sha256sum "$here/driver.f90" | cut -d' ' -f1)"
  for v in v3 v4; do
    echo "driver_$v needs: $(ldd "$out/driver_$v" | awk '{print $1}' | tr '\n' ' ')"
  done
  echo "lib/: $(ls "$out/lib" | tr '\n' ' ')"
} > "$out/BUILD.txt"
cat "$out/BUILD.txt"
