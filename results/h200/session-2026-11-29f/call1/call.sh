#!/usr/bin/env bash
# Device call 1 (2026-11-29f): main plus the shared back end's adjacent leaves both ways (old =
# main at c31208b in .gpu/old). GPU tests of the path; the defaults' phases old/new on 1e6
# uniform and clusters (field off and on); forced CT on uniform; gpu-ab at the defaults, 4 sets.
set -u
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/w
t0=$(date +%s)
stamp() { echo "== $1 at $(( $(date +%s) - t0 )) s" | tee -a $O/w/steps.log; }
export LD_LIBRARY_PATH=$PWD/.gpu
W=$(mktemp -d)
stamp tests
for t in test_gpu_mutual test_mutual_layout test_gpu_backends test_fast_layout test_determinism test_gpu_errors; do
  timeout 200 .gpu/$t > $O/w/$t.log 2>&1; echo "$t rc $?" | tee -a $O/w/tests.log
  tail -3 $O/w/$t.log
done
stamp phases
for s in uniform clusters; do
  .gpu/mlfma2d generate --shape $s --n 1e6 --seed 1 --output $W/$s.h5 --quiet
done
for s in uniform clusters; do
  for f in "" "--field"; do
    for r in 1 2; do
      for v in old new; do
        bin=.gpu/mlfma2d lib=$PWD/.gpu
        [ $v = old ] && bin=.gpu/old/mlfma2d lib=$PWD/.gpu/old:$PWD/.gpu
        LD_LIBRARY_PATH=$lib MLFMA2D_CACHE_DIR=$W/cache-$v timeout 60 $bin --input $W/$s.h5 --eps 1e-10 --repeat 10 $f --report json > $W/p.json 2>$W/p.err || cat $W/p.err
        python3 -c "
import json, statistics
j = json.load(open('$W/p.json')); t = j['timings']
print('$s', '$f' or 'pot', '$v', j['backend'], 'CT', j['ct'], 'median ms %.2f' % (1e3 * statistics.median(j['totals'][1:])), ' '.join('%s %.2f' % (k, 1e3 * t[k]) for k in ['far', 'near', 'near_kernel']))" >> $O/w/phases.log
      done
    done
  done
done
cat $O/w/phases.log
stamp forced
for ct in 256 512 1024; do
  for v in old new; do
    bin=.gpu/mlfma2d lib=$PWD/.gpu
    [ $v = old ] && bin=.gpu/old/mlfma2d lib=$PWD/.gpu/old:$PWD/.gpu
    LD_LIBRARY_PATH=$lib timeout 60 $bin --input $W/uniform.h5 --eps 1e-10 --repeat 10 --ct $ct --backend shared --report json > $W/p.json 2>$W/p.err || cat $W/p.err
    python3 -c "
import json, statistics
j = json.load(open('$W/p.json')); t = j['timings']
print('uniform CT $ct $v median ms %.2f' % (1e3 * statistics.median(j['totals'][1:])), ' '.join('%s %.2f' % (k, 1e3 * t[k]) for k in ['far', 'near', 'near_kernel']))" >> $O/w/forced.log
  done
done
cat $O/w/forced.log
stamp ab
OUT=$O/w/ab ROUNDS=2 REPEAT=10 timeout 240 bash scripts/gpu-ab "1e6:uniform,clusters,graded-polygon,circle" > $O/w/ab.log 2>&1
cat $O/w/ab.log
stamp end
cd $O && tar -czf call.tgz w && rm -rf w
