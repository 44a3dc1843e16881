#!/usr/bin/env bash
# Device call 1 (2026-11-30): main at c069f63 with and without transparent huge pages for the
# process's allocations (GLIBC_TUNABLES=glibc.malloc.hugetlb=1: madvise(MADV_HUGEPAGE) on what
# malloc maps), alternating: 1e7 uniform defaults (shared), 1e6 uniform CPU only, 1e8 uniform eps
# 1e-6 defaults; the trace of one run each at 1e7; the system's THP setting and AnonHugePages.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
export LD_LIBRARY_PATH=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
{ cat /sys/kernel/mm/transparent_hugepage/enabled; cat /sys/kernel/mm/transparent_hugepage/defrag; lscpu; ldd --version | head -1; } > $O/host.txt 2>&1
W=$(mktemp -d)
stamp generate
.gpu/mlfma2d generate --shape uniform --n 1e6 --seed 1 --output $W/u6.h5 --quiet
.gpu/mlfma2d generate --shape uniform --n 1e7 --seed 1 --output $W/u7.h5 --quiet
.gpu/mlfma2d generate --shape uniform --n 1e8 --seed 1 --output $W/u8.h5 --quiet
run() {  # tag tunable args...
  local tag=$1 tun=$2; shift 2
  if [ "$tun" = thp ]; then GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "$@"; else "$@"; fi > $O/$tag.json 2> $O/$tag.err
  python3 - "$O/$tag.json" "$tag" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = r["timings"]; ts = sorted(r["totals"])
print(f"{sys.argv[2]}: ct {r['ct']} min {ts[0]*1e3:.2f} med {ts[len(ts)//2]*1e3:.2f} far {t['far']*1e3:.2f} near {t['near']*1e3:.2f} m2l {t['m2l']*1e3:.2f} p2m {t['p2m']*1e3:.2f} l2p {t['l2p']*1e3:.2f} peak {r.get('memory_peak',0)/2**20:.0f} MiB")
PY
}
stamp calibrate
.gpu/mlfma2d --input $W/u6.h5 --eps 1e-10 --repeat 2 --report json > /dev/null 2>&1
.gpu/mlfma2d --input $W/u6.h5 --eps 1e-10 --repeat 2 --backend cpu --report json > /dev/null 2>&1
stamp rounds
for r in 1 2 3; do
  for tun in plain thp; do
    run u7-$tun-$r $tun .gpu/mlfma2d --input $W/u7.h5 --eps 1e-10 --repeat 7 --report json
    run u6cpu-$tun-$r $tun .gpu/mlfma2d --input $W/u6.h5 --eps 1e-10 --repeat 7 --backend cpu --report json
  done
done > $O/rounds.log 2>&1
stamp trace
for tun in plain thp; do
  if [ $tun = thp ]; then export GLIBC_TUNABLES=glibc.malloc.hugetlb=1; fi
  MLFMA2D_TRACE=1 .gpu/mlfma2d --input $W/u7.h5 --eps 1e-10 --repeat 5 --report json > /dev/null 2> $O/trace7-$tun.txt
  unset GLIBC_TUNABLES
done
stamp 1e8
for r in 1 2; do
  for tun in plain thp; do
    ( while sleep 1; do grep AnonHugePages /proc/meminfo; done ) > $O/anon-u8-$tun-$r.txt 2>&1 &
    sp=$!
    run u8-$tun-$r $tun .gpu/mlfma2d --input $W/u8.h5 --eps 1e-6 --repeat 3 --report json
    kill $sp
  done
done >> $O/rounds.log 2>&1
stamp done
cat $O/rounds.log
rm -rf $W $O/cache
tar -czf $OUT/call.tgz -C $OUT w
