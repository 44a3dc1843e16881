#pragma once
// A fixed permutation of n elements applied in two cache-friendly passes (docs/performance.md,
// section 5.2). Moving an element to a random place costs a cache line (two for a write: it is
// read first); at 1e8 points the tree order of the strengths and the caller order of the outputs
// each took 150-330 ms of the far field's 1 s that way. Here the places are cut into blocks of
// at most 2^16 elements (512 KiB of doubles, within a core's L2): pass one streams the input
// into one run per block (up to about 1500 write streams at 1e8), pass two moves each run within
// its block, in cache. Both directions (scatter: out[to[k]] = in[k]; gather: out[k] = in[to[k]])
// use the same two arrays, 8 bytes an element, and a scratch of one element per element (so one
// call at a time on an object).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/array.hpp"

namespace mlfma2d {

class BlockedPermutation {
 public:
  BlockedPermutation() = default;
  /// The permutation k -> to[k] of [0, n); n < 2^32. `threads`: the team that builds it.
  BlockedPermutation(const std::int64_t* to, std::size_t n, int threads);

  std::size_t size() const { return n_; }
  /// out[to[k]] = in[k] for k < n; with `plus`, out[to[k]] = plus[to[k]] + in[k] (plus may be
  /// out: an addition in place; or another array, read where out is written: one pass for a
  /// sum that would otherwise be a copy and an addition).
  void scatter(const double* in, double* out, const double* plus, int threads) const;
  /// out[k] = in[to[k]] for k < n.
  void gather(const double* in, double* out, int threads) const;

 private:
  std::size_t n_ = 0;
  int block_bits_ = 16;                 // a block: 2^block_bits_ places
  std::size_t chunk_ = 1, chunks_ = 0;  // pass one's parts of [0, n): chunks_ of chunk_ each
  Array<std::uint32_t> slot_;           // element k's slot in the runs (block-major, then chunk)
  Array<std::uint32_t> place_;          // the slot's place within its block
  std::vector<std::size_t> run_;        // block b's slots: [run_[b], run_[b + 1])
  mutable Array<double> scratch_;       // the runs (n doubles)
};

}  // namespace mlfma2d
