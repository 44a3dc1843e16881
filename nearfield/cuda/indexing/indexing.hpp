#pragma once
// 'indexing' (paper Alg. 1, 2): the seven-array SoA layout, one thread per leaf box. The host
// collection of the index arrays and the kernel's per-thread body live here as plain C++ so the
// host-side tests (tests/test_collect.cpp) walk the collected arrays exactly as the kernel does.
#include <cstddef>
#include <cstdint>

#include "kernel/pair.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"

namespace mlfma2d::cuda {

/// \brief The seven arrays of the indexing layout (paper Alg. 1), device or host pointers.
/// Coordinates are separate x and y arrays (SoA, not interleaved), all in caller order.
/// The four index arrays cover one chunk of whole leaves and are local to it.
struct IndexingArrays {
  const double* tx = nullptr;                 ///< 1. target x, caller order (n_targets)
  const double* ty = nullptr;                 ///<    target y
  const double* sx = nullptr;                 ///< 2. source x, caller order (n_sources)
  const double* sy = nullptr;                 ///<    source y
  const double* q = nullptr;                  ///< 3. source strengths, caller order
  const std::int32_t* all_targets = nullptr;  ///< 4. caller target indices, box by box (Morton)
  const std::int64_t* all_targets_index = nullptr;    ///< 5. start of each box in 4 (boxes + 1)
  const std::int32_t* all_neighbors = nullptr;        ///< 6. caller source indices of each box's
                                                      ///<    near list, concatenated
  const std::int64_t* all_neighbors_index = nullptr;  ///< 7. start of each box in 6 (boxes + 1)
  std::int64_t boxes = 0;                             ///< leaves in this chunk
};

/// Indexing kernel body (paper Alg. 2): thread `box` sums, for every target of its box, the
/// pairs with all sources of the box's near list, and writes the result at the target's caller
/// index. Sums are kept in registers and written once per target.
template <bool kField>
MLFMA2D_HD void indexing_box(const IndexingArrays& a, std::int64_t box, const NearFieldOut& out) {
  const std::int64_t t_begin = a.all_targets_index[box], t_end = a.all_targets_index[box + 1];
  const std::int64_t n_begin = a.all_neighbors_index[box], n_end = a.all_neighbors_index[box + 1];
  for (std::int64_t i = t_begin; i < t_end; ++i) {
    const std::int32_t ti = a.all_targets[i];
    const double x = a.tx[ti], y = a.ty[ti];
    double phi = 0, ex = 0, ey = 0;
    for (std::int64_t j = n_begin; j < n_end; ++j) {
      const std::int32_t si = a.all_neighbors[j];
      if constexpr (kField) {
        log_pair_field(x, y, a.sx[si], a.sy[si], a.q[si], &phi, &ex, &ey);
      } else {
        log_pair(x, y, a.sx[si], a.sy[si], a.q[si], &phi);
      }
    }
    out.phi[ti] = phi;
    if constexpr (kField) {
      out.ex[ti] = ex;
      out.ey[ti] = ey;
    }
  }
}

/// Launch the indexing kernel, one thread per box of the chunk, on `stream` (a cudaStream_t).
/// All pointers are device pointers. Throws CudaError if the launch fails.
void launch_indexing(const IndexingArrays& arrays, const NearFieldOut& out, bool field,
                     void* stream);

/// \brief Byte offsets of a chunk's four index arrays in one contiguous buffer (int64 arrays
/// first, so every array is aligned to its element size); uploaded with one copy.
struct IndexingChunkLayout {
  std::size_t all_targets_index = 0, all_neighbors_index = 0, all_targets = 0, all_neighbors = 0;
  std::size_t bytes = 0;  ///< = indexing_chunk_cost().bytes(c) - fixed
};
IndexingChunkLayout indexing_chunk_layout(const Chunk& c);
/// The per-chunk part of the indexing cost (matches indexing_chunk_layout); fixed = 0.
ChunkCost indexing_chunk_cost();

/// Fill the four index arrays of one chunk (local to the chunk):
///   all_targets[c.targets()]          caller target indices, box by box (= tgt_index)
///   all_targets_index[c.leaves() + 1] start of each box in all_targets
///   all_neighbors[c.neighbors]        caller source indices of each box's near list
///   all_neighbors_index[c.leaves()+1] start of each box in all_neighbors
/// Point indices are int32: the caller checks n_sources, n_targets < 2^31.
void collect_indexing_chunk(const NearFieldProblem& p, const Chunk& c, std::int32_t* all_targets,
                            std::int64_t* all_targets_index, std::int32_t* all_neighbors,
                            std::int64_t* all_neighbors_index);

}  // namespace mlfma2d::cuda
