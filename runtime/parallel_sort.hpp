#pragma once
// Parallel sort of points by their 64-bit Morton keys (the tree's first step): a most-significant
// digit pass over the whole array, then each bucket sorted on its own, in cache, in parallel.
// The coordinates travel with the keys (one record per point, read from the caller's arrays in the
// first pass), so no random gather follows.
#include <cstdint>

#include "runtime/array.hpp"

namespace mlfma2d {

/// \brief Points to sort: keys with the caller index and coordinates of each point.
struct KeyedPoints {
  Array<std::uint64_t> key;
  Array<std::int64_t> index;
  Array<double> x, y;
};

/// The points i = 0..n-1 with keys[i] and coordinates (x[i], y[i]), sorted ascending by key:
/// index holds each point's position i. Stable (equal keys keep their input order), so the result
/// does not depend on the thread count. threads <= 0: the OpenMP default.
KeyedPoints sort_points(Array<std::uint64_t> keys, const double* x, const double* y, int threads);

}  // namespace mlfma2d
