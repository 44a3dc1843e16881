// A fixed permutation in two cache-friendly passes (runtime/permutation.hpp).
#include "runtime/permutation.hpp"

#include <algorithm>
#include <stdexcept>

#include "runtime/threads.hpp"

namespace mlfma2d {

BlockedPermutation::BlockedPermutation(const std::int64_t* to, std::size_t n, int threads) : n_(n) {
  if (n >= (std::size_t(1) << 32))
    throw std::length_error("BlockedPermutation: 2^32 elements or more");
  // Blocks of 2^16 places, smaller below 4M elements so that there are some 64 of them for the
  // threads of pass two; pass one in up to 256 chunks of at least 2^14 elements.
  block_bits_ = 16;
  while (block_bits_ > 8 && (n >> block_bits_) < 64) --block_bits_;
  chunks_ = std::max<std::size_t>(1, std::min<std::size_t>(256, n >> 14));
  chunk_ = std::max<std::size_t>(1, (n + chunks_ - 1) / chunks_);
  const std::size_t blocks = (n >> block_bits_) + 1, mask = (std::size_t(1) << block_bits_) - 1;
  // How many of each chunk's elements go to each block; then each (block, chunk) run's start.
  std::vector<std::size_t> start(chunks_ * blocks, 0);  // [c * blocks + b]
  const int team = team_size(threads, std::int64_t(n));
#pragma omp parallel for num_threads(team) schedule(dynamic)
  for (std::size_t c = 0; c < chunks_; ++c) {
    std::size_t* count = &start[c * blocks];
    for (std::size_t k = c * chunk_; k < std::min(n, (c + 1) * chunk_); ++k)
      ++count[std::size_t(to[k]) >> block_bits_];
  }
  run_.assign(blocks + 1, 0);
  std::size_t at = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    run_[b] = at;
    for (std::size_t c = 0; c < chunks_; ++c) {
      const std::size_t m = start[c * blocks + b];
      start[c * blocks + b] = at;
      at += m;
    }
  }
  run_[blocks] = at;
  slot_.resize(n);
  place_.resize(n);
#pragma omp parallel for num_threads(team) schedule(dynamic)
  for (std::size_t c = 0; c < chunks_; ++c) {
    std::size_t* cursor = &start[c * blocks];
    for (std::size_t k = c * chunk_; k < std::min(n, (c + 1) * chunk_); ++k) {
      const std::size_t t = std::size_t(to[k]), s = cursor[t >> block_bits_]++;
      slot_[k] = std::uint32_t(s);
      place_[s] = std::uint32_t(t & mask);
    }
  }
}

void BlockedPermutation::scatter(const double* in, double* out, const double* plus,
                                 int threads) const {
  scratch_.resize(n_);
  double* runs = scratch_.data();
  const std::size_t blocks = run_.size() - 1;
#pragma omp parallel num_threads(team_size(threads, std::int64_t(n_)))
  {
#pragma omp for schedule(static)
    for (std::size_t c = 0; c < chunks_; ++c)
      for (std::size_t k = c * chunk_; k < std::min(n_, (c + 1) * chunk_); ++k)
        runs[slot_[k]] = in[k];
#pragma omp for schedule(static)
    for (std::size_t b = 0; b < blocks; ++b) {
      double* o = out + (b << block_bits_);
      if (plus) {
        // A sum with another array: the block copied from it first (a stream), then added to in
        // cache (reading it at the scattered places was a second random stream, slower).
        if (plus != out)
          std::copy(plus + (b << block_bits_), plus + std::min(n_, (b + 1) << block_bits_), o);
        for (std::size_t j = run_[b]; j < run_[b + 1]; ++j) o[place_[j]] += runs[j];
      } else {
        for (std::size_t j = run_[b]; j < run_[b + 1]; ++j) o[place_[j]] = runs[j];
      }
    }
  }
}

void BlockedPermutation::gather(const double* in, double* out, int threads) const {
  scratch_.resize(n_);
  double* runs = scratch_.data();
  const std::size_t blocks = run_.size() - 1;
#pragma omp parallel num_threads(team_size(threads, std::int64_t(n_)))
  {
#pragma omp for schedule(static)
    for (std::size_t b = 0; b < blocks; ++b) {
      const double* i = in + (b << block_bits_);
      for (std::size_t j = run_[b]; j < run_[b + 1]; ++j) runs[j] = i[place_[j]];
    }
#pragma omp for schedule(static)
    for (std::size_t c = 0; c < chunks_; ++c)
      for (std::size_t k = c * chunk_; k < std::min(n_, (c + 1) * chunk_); ++k)
        out[k] = runs[slot_[k]];
  }
}

}  // namespace mlfma2d
