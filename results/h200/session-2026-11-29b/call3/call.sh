#!/usr/bin/env bash
# Device call 3 (2026-11-29b): the cost model's candidates (predicted) against the chosen run
# (measured): uniform 1e6 potential / field / Hessian, circle 1e6 (default threads and 16), and
# each shape forced to CT 128 and 512.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu MLFMA2D_CACHE_DIR=$O/w/cache
B=.gpu/mlfma2d
$B generate --shape uniform --n 1e6 --seed 1 --output /tmp/u1.h5 --quiet
$B generate --shape circle --n 1e6 --seed 1 --output /tmp/c1.h5 --quiet
show() {
  python3 - "$1" "$2" <<'PY'
import json, statistics, sys
j = json.load(open(sys.argv[1])); t = j["timings"]
print("%-28s CT %5s median %.2f ms | near %.2f far %.2f | m2l %.2f p2m %.2f l2p %.2f" % (
    sys.argv[2], j["ct"], 1e3 * statistics.median(j["totals"][1:]), 1e3 * t["near"], 1e3 * t["far"],
    1e3 * t["m2l"], 1e3 * t["p2m"], 1e3 * t["l2p"]))
for c in (j.get("auto") or {}).get("candidates", []):
    print("    predicted CT %5d levels %2d far %.2f near %.2f total %.2f" % (
        c["ct"], c["levels"], 1e3 * c["far_seconds"], 1e3 * c["near_seconds"], 1e3 * c["total_seconds"]))
PY
}
for r in 1 2; do
for spec in "pot /tmp/u1.h5" "field /tmp/u1.h5 --field" "hess /tmp/u1.h5 --field --hessian" "circle /tmp/c1.h5" "circle16 /tmp/c1.h5 --threads 16"; do
  set -- $spec; id=$1; f=$2; shift 2
  $B --input $f --eps 1e-10 --repeat 10 --report json "$@" > $O/w/$id.json 2>/dev/null; show $O/w/$id.json "$id auto r$r"
  if [ $r = 1 ]; then for ct in 128 512 1024; do
    $B --input $f --eps 1e-10 --repeat 10 --ct $ct --report json "$@" > $O/w/${id}_$ct.json 2>/dev/null; show $O/w/${id}_$ct.json "$id"
  done; fi
done
done
cat $O/w/cache/*.txt
tar -czf $O/call.tgz -C $O w
