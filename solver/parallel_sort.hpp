#pragma once
// Parallel stable LSD radix sort of 64-bit keys carrying an index (Morton sort of the tree).
#include <cstdint>
#include <vector>

namespace mlfma2d {

/// Sort keys ascending, permuting idx alongside. Stable, so equal keys keep their idx order and
/// the result does not depend on the thread count. threads <= 0: the OpenMP default.
void sort_keys_with_index(std::vector<std::uint64_t>* keys, std::vector<std::int64_t>* idx,
                          int threads);

}  // namespace mlfma2d
