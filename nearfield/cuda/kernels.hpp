#pragma once
// The CUDA near-field kernels: their plain launchers (defined in indexing.cu, repetition.cu)
// and the per-thread bodies they run. The bodies are MLFMA2D_HD functions so the host-side
// tests (tests/test_collect.cpp) walk the collected arrays exactly as the kernels do.
// Plain C++: no CUDA types.
#include <cstdint>

#include "nearfield/pair.hpp"

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
                                                      ///<    E1 boxes, concatenated
  const std::int64_t* all_neighbors_index = nullptr;  ///< 7. start of each box in 6 (boxes + 1)
  std::int64_t boxes = 0;                             ///< leaves in this chunk
};

/// \brief Where a kernel writes: potential and, with the field, E = (ex, ey) (else null).
struct NearFieldOut {
  double* phi = nullptr;
  double* ex = nullptr;
  double* ey = nullptr;
};

/// Indexing kernel body (paper Alg. 2): thread `box` sums, for every target of its box, the
/// pairs with all sources of the box's E1 list, and writes the result at the target's caller
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

/// Repetition kernel body (paper Alg. 4): thread `i` reads its own record
///   [x, y, n, (sx, sy, q) * n, padding]  at records + i * stride
/// and writes its sums at position i (tree order within the chunk).
template <bool kField>
MLFMA2D_HD void repetition_target(const double* records, std::int64_t stride, std::int64_t i,
                                  const NearFieldOut& out) {
  const double* r = records + i * stride;
  const double x = r[0], y = r[1];
  const auto n = static_cast<std::int64_t>(r[2]);  // n is stored as a double (exact < 2^53)
  const double* s = r + 3;
  double phi = 0, ex = 0, ey = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    if constexpr (kField) {
      log_pair_field(x, y, s[3 * k], s[3 * k + 1], s[3 * k + 2], &phi, &ex, &ey);
    } else {
      log_pair(x, y, s[3 * k], s[3 * k + 1], s[3 * k + 2], &phi);
    }
  }
  out.phi[i] = phi;
  if constexpr (kField) {
    out.ex[i] = ex;
    out.ey[i] = ey;
  }
}

/// Launch the indexing kernel, one thread per box of the chunk, on `stream` (a cudaStream_t).
/// All pointers are device pointers. Throws CudaError if the launch fails.
void launch_indexing(const IndexingArrays& arrays, const NearFieldOut& out, bool field,
                     void* stream);

/// Launch the repetition kernel, one thread per record (target) of the chunk, on `stream`.
void launch_repetition(const double* records, std::int64_t n_records, std::int64_t stride,
                       const NearFieldOut& out, bool field, void* stream);

}  // namespace mlfma2d::cuda
