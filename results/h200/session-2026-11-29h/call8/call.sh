#!/usr/bin/env bash
# Device call 8 (2026-11-29h): every test binary of the working tree's build (.gpu/run.sh), and
# the bench's rows p and a (the far field's GFLOP/s against the probe's peak) for main at
# 4f6e7c2 (.gpu/old) and the working tree, alternating, two rounds.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export LD_LIBRARY_PATH=$PWD/.gpu
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/steps.log; }
stamp rows
for r in 1 2; do
  for v in old new; do
    b=.gpu; lib=$PWD/.gpu; [ $v = old ] && b=.gpu/old && lib=$PWD/.gpu/old:$PWD/.gpu
    echo "== $v round $r"
    MLFMA2D_CACHE_DIR=$O/cache-$v LD_LIBRARY_PATH=$lib $b/mlfma2d_bench --rows p,a --threads 16 \
      --json $O/rows_${v}_$r.json 2>&1 | grep -E "^(p|a) "
  done
done > $O/rows.log 2>&1
stamp run.sh
OUT=$O/run bash .gpu/run.sh > $O/run.log 2>&1
grep -E "^test_" $O/run.log | awk '{print $1, $2, $3}' | tr '\n' ';'; echo
grep -E "rc [1-9]|FAILED" $O/run.log | head -20
stamp done
rm -rf $O/cache-old $O/cache-new
(cd $O/run && tar -xzf results.tar.gz 2>/dev/null; rm -rf tests bench)
tar -czf $OUT/call.tgz -C $OUT w
