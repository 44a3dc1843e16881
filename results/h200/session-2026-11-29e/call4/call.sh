#!/usr/bin/env bash
# Device call 4 (2026-11-29e): FMM2D's threads unbound (as scripts/gpu-sets ran it) against bound
# (OMP_PROC_BIND close / spread, OMP_PLACES cores), 1e6 uniform and clustered points, eps 1e-10,
# both its builds, two rounds; mlfma2d at the defaults on the same files between them.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
export MLFMA2D_CACHE_DIR=$W/cache
nproc > $O/w/host.txt; lscpu >> $O/w/host.txt
for s in uniform clusters; do
  .gpu/mlfma2d generate --shape $s --n 1e6 --seed 1 --output $W/$s.h5 --quiet
  python3 .fmm2d/to_bin.py $W/$s.h5 $W/$s.bin --nd 1 --seed 1 > /dev/null
done
for r in 1 2; do
  for s in uniform clusters; do
    for bind in none close spread; do
      for v in v3 v4; do
        if [ $bind = none ]; then
          line=$(env -u OMP_PROC_BIND -u OMP_PLACES FMM2D_BENCH=$v .fmm2d/run.sh $W/$s.bin $W/out.bin --nd 1 --eps 1e-10 --charges 1 --dipoles 0 --pgh 1 --repeat 3 --threads 16 | tail -1)
        else
          line=$(OMP_PROC_BIND=$bind OMP_PLACES=cores FMM2D_BENCH=$v .fmm2d/run.sh $W/$s.bin $W/out.bin --nd 1 --eps 1e-10 --charges 1 --dipoles 0 --pgh 1 --repeat 3 --threads 16 | tail -1)
        fi
        echo "{\"round\": $r, \"set\": \"$s\", \"bind\": \"$bind\", \"build\": \"$v\", \"run\": $line}" >> $O/w/fmm2d.jsonl
      done
    done
    .gpu/mlfma2d --input $W/$s.h5 --eps 1e-10 --repeat 10 --report json > $W/o.json 2>/dev/null
    python3 -c "
import json, statistics
j = json.load(open('$W/o.json'))
print(json.dumps({'round': $r, 'set': '$s', 'code': 'mlfma2d', 'ct': j['ct'], 'median_s': statistics.median(j['totals'][1:])}))" >> $O/w/fmm2d.jsonl
  done
done
python3 - $O/w/fmm2d.jsonl <<'PY' | tee $O/w/fmm2d.md
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| round | set | FMM2D unbound v3 / v4 ms | close v3 / v4 | spread v3 / v4 | mlfma2d ms |")
print("| --- | --- | --- | --- | --- | --- |")
for r in (1, 2):
    for s in ("uniform", "clusters"):
        cell = {}
        for x in rows:
            if x.get("round") == r and x.get("set") == s and "bind" in x:
                cell[(x["bind"], x["build"])] = x["run"]["median"] * 1e3
        m = [x for x in rows if x.get("round") == r and x.get("set") == s and x.get("code") == "mlfma2d"]
        print("| %d | %s | %s | %s | %s | %.2f |" % (r, s, *[
            "%.0f / %.0f" % (cell.get((b, "v3"), float("nan")), cell.get((b, "v4"), float("nan")))
            for b in ("none", "close", "spread")], 1e3 * m[0]["median_s"]))
PY
tar -czf $O/call.tgz -C $O w
