#pragma once
// The OpenMP team size every parallel loop of the library uses: a thread count >= 1, or the
// OpenMP default for 0 (Options::threads, NearFieldProblem::threads).
#include <omp.h>

namespace mlfma2d {

inline int team_size(int threads) {
  return threads > 0 ? threads : omp_get_max_threads();
}

/// Below this many items a loop runs on one thread: waking a team costs more than the work, and
/// on a busy machine a barrier can wait a whole time slice (deep adaptive trees have ~30 levels,
/// most of them small).
constexpr long long kParallelMin = 4096;

/// Boxes below which a far-field operator of one level runs on one thread: a box costs a
/// (p+1)^2 matrix-vector product, about a microsecond, so a hundred of them pay for a barrier.
constexpr long long kParallelMinBoxes = 128;

/// The team for a loop over `items`: one thread when they are fewer than `min_items`, else
/// team_size(threads). Never a size in between: libgomp ends the threads a smaller team leaves
/// out and makes new ones for the next larger team (teams sized by the work, 1 to 15 threads
/// from region to region, took the far field of a 1e5-point graded polygon from 2.8 to 524 ms
/// on the 16-core host, the new threads inheriting a pinned CPU; results/h100/wave2c/call4.log).
inline int team_size(int threads, long long items, long long min_items = kParallelMin) {
  return items < min_items ? 1 : team_size(threads);
}

}  // namespace mlfma2d
