#!/usr/bin/env bash
# Device call 7 (2026-11-29b): W and X items into a device's near field (widen_near_field). The
# default choice against the same CT with the default threshold (--ct), three rounds alternating;
# FMM2D at 1e6; the GPU tests and the cost model's.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu MLFMA2D_CACHE_DIR=$O/w/cache
B=.gpu/mlfma2d
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
for s in clusters circle graded-polygon; do $B generate --shape $s --n 1e6 --seed 1 --output /tmp/${s}_1e6.h5 --quiet; done
$B generate --shape clusters --n 1e7 --seed 1 --output /tmp/clusters_1e7.h5 --quiet
$B generate --shape graded-polygon --n 1e7 --seed 1 --output /tmp/graded-polygon_1e7.h5 --quiet
show() {
  python3 - "$1" "$2" <<'PY'
import json, statistics, sys
j = json.load(open(sys.argv[1])); t = j["timings"]
why = (j.get("auto") or {}).get("reason", "")
extra = why[why.find("W boxes"):] if "W boxes" in why else ""
print("%-28s CT %4s median %.2f ms | near %.2f far %.2f p2l %.2f m2p %.2f | pairs %.3g %s" % (
    sys.argv[2], j["ct"], 1e3 * statistics.median(j["totals"][1:]), 1e3 * t["near"], 1e3 * t["far"],
    1e3 * t["p2l"], 1e3 * t["m2p"], j["near_pairs"], extra[:60]))
PY
}
stamp ab
for r in 1 2 3; do
  for f in clusters_1e6 circle_1e6 graded-polygon_1e6 clusters_1e7 graded-polygon_1e7; do
    $B --input /tmp/$f.h5 --eps 1e-10 --repeat 10 --report json > $O/w/${f}_auto_$r.json 2>/dev/null
    show $O/w/${f}_auto_$r.json "$f auto $r"
    ct=$(python3 -c "import json; print(json.load(open('$O/w/${f}_auto_$r.json'))['ct'])")
    $B --input /tmp/$f.h5 --eps 1e-10 --repeat 10 --ct $ct --report json > $O/w/${f}_ct_$r.json 2>/dev/null
    show $O/w/${f}_ct_$r.json "$f --ct $ct $r"
  done
done
stamp sets
OUT=$O/w/sets bash scripts/gpu-sets 1e6 > $O/w/sets.log 2>&1
cat $O/w/sets/sets.md
stamp tests
for t in test_gpu_backends test_cost_model test_solver test_auto; do
  timeout 200 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc=$?"; grep -E "^\[  (PASSED|FAILED)" $O/w/$t.log
done
stamp done
rm -rf $O/w/cache
tar -czf $O/call.tgz -C $O w
