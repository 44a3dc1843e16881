#!/usr/bin/env bash
# Device call 3 (2026-11-29e): main at 98036ea. The cost model's candidates against forced
# leaf capacities at the defaults (eps 1e-10, 1e6 points): does CT 512 hold for uniform and
# clustered points?
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
export MLFMA2D_CACHE_DIR=$W/cache
for s in uniform clusters; do
  .gpu/mlfma2d generate --shape $s --n 1e6 --seed 1 --output $W/$s.h5 --quiet
  stamp $s
  .gpu/mlfma2d --input $W/$s.h5 --eps 1e-10 --repeat 10 > $O/w/$s-auto.txt 2>&1
  for r in 1 2; do
    for ct in auto 256 512 1024; do
      a=(); [ $ct != auto ] && a=(--ct $ct)
      .gpu/mlfma2d --input $W/$s.h5 --eps 1e-10 --repeat 15 "${a[@]}" --report json > $W/o.json 2>/dev/null
      python3 -c "
import json, statistics
j = json.load(open('$W/o.json')); t = j['timings']
print('$s', 'ct $ct ->', j['ct'], 'median ms %.2f' % (1e3 * statistics.median(j['totals'][1:])), 'far %.2f near %.2f' % (1e3 * t['far'], 1e3 * t['near']))" >> $O/w/ct.log
    done
  done
done
cat $O/w/ct.log
grep -A8 "candidates" $O/w/*-auto.txt
stamp done
tar -czf $O/call.tgz -C $O w
