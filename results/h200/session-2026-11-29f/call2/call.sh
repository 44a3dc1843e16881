#!/usr/bin/env bash
# Device call 2 (2026-11-29f): main at e5a4d3e (the shared back end's mutual path). Every test
# binary (.gpu/run.sh); scripts/gpu-sets 1e6 (FMM2D both builds, bound and unbound); the
# defaults' operators on 1e6 clusters (two runs).
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
stamp run
OUT=$O/w/run timeout 330 bash .gpu/run.sh > $O/w/run.log 2>&1
grep -E "rc [0-9]+|passed|failed|FAILED" $O/w/run.log | tail -50
stamp sets
OUT=$O/w/sets timeout 200 bash scripts/gpu-sets 1e6 > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp phases
.gpu/mlfma2d generate --shape clusters --n 1e6 --seed 1 --output $W/c.h5 --quiet
for r in 1 2; do
  MLFMA2D_CACHE_DIR=$W/cache timeout 60 .gpu/mlfma2d --input $W/c.h5 --eps 1e-10 --repeat 10 --report json > $W/p.json 2>/dev/null
  python3 -c "
import json, statistics
j = json.load(open('$W/p.json')); t = j['timings']
print(j['backend'], 'CT', j['ct'], 'median ms %.2f' % (1e3 * statistics.median(j['totals'][1:])), ' '.join('%s %.2f' % (k, 1e3 * t[k]) for k in ['far', 'near', 'near_kernel', 'p2m', 'm2m', 'm2l', 'p2l', 'l2l', 'l2p', 'm2p']))" >> $O/w/phases.log
done
MLFMA2D_CACHE_DIR=$W/cache timeout 60 .gpu/mlfma2d --input $W/c.h5 --eps 1e-10 --repeat 10 > $O/w/clusters-auto.txt 2>&1
cat $O/w/phases.log
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
