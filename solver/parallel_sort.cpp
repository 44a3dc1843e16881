#include "solver/parallel_sort.hpp"

#include <omp.h>

#include <algorithm>

namespace mlfma2d {

void sort_keys_with_index(std::vector<std::uint64_t>* keys, std::vector<std::int64_t>* idx,
                          int threads) {
  constexpr int kBits = 11, kBuckets = 1 << kBits;
  const std::size_t n = keys->size();
  if (n < 2) return;
  std::uint64_t all_bits = 0;
  for (std::uint64_t k : *keys) all_bits |= k;
  const int chunks = std::max(1, threads > 0 ? threads : omp_get_max_threads());
  std::vector<std::uint64_t> k2(n);
  std::vector<std::int64_t> i2(n);
  std::vector<std::size_t> count(std::size_t(chunks) * kBuckets);
  auto lo = [&](int c) { return n * std::size_t(c) / std::size_t(chunks); };

  for (int shift = 0; shift < 64 && (all_bits >> shift) != 0; shift += kBits) {
    std::fill(count.begin(), count.end(), 0);
    const std::uint64_t* src = keys->data();
#pragma omp parallel for num_threads(chunks) schedule(static, 1)
    for (int c = 0; c < chunks; ++c) {
      std::size_t* h = &count[std::size_t(c) * kBuckets];
      for (std::size_t i = lo(c); i < lo(c + 1); ++i) ++h[(src[i] >> shift) & (kBuckets - 1)];
    }
    // Exclusive prefix over (digit, chunk): chunk c's digit d goes after all smaller digits and
    // after the same digit of earlier chunks -- this is what keeps the sort stable.
    std::size_t sum = 0;
    for (int d = 0; d < kBuckets; ++d) {
      for (int c = 0; c < chunks; ++c) {
        std::size_t& h = count[std::size_t(c) * kBuckets + d];
        const std::size_t v = h;
        h = sum;
        sum += v;
      }
    }
#pragma omp parallel for num_threads(chunks) schedule(static, 1)
    for (int c = 0; c < chunks; ++c) {
      std::size_t* h = &count[std::size_t(c) * kBuckets];
      for (std::size_t i = lo(c); i < lo(c + 1); ++i) {
        const std::size_t to = h[(src[i] >> shift) & (kBuckets - 1)]++;
        k2[to] = src[i];
        i2[to] = (*idx)[i];
      }
    }
    keys->swap(k2);
    idx->swap(i2);
  }
}

}  // namespace mlfma2d
