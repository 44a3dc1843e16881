#!/usr/bin/env bash
# Device call 7 (2026-11-30): the committed build (1274659): the GPU test of the handshake and the
# whole GPU suite.
set -u
cd "$(dirname "$0")/.."
O=$OUT/w; mkdir -p $O
export MLFMA2D_CACHE_DIR=$O/cache
LD_LIBRARY_PATH=$PWD/.gpu timeout 120 .gpu/test_gpu_shared > $O/test_gpu_shared.log 2>&1; echo "rc $?" >> $O/test_gpu_shared.log
tail -3 $O/test_gpu_shared.log
OUT=$O/suite timeout 400 bash .gpu/run.sh > $O/suite.log 2>&1; echo "suite rc $?" | tee -a $O/suite.log
tail -4 $O/suite.log
rm -rf $O/cache
tar -czf $OUT/call.tgz -C $OUT w
