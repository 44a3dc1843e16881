#pragma once
// 'repetition' (paper Alg. 3, 4): one padded record of replicated near sources per target, one
// thread per target. The host collection and the kernel's per-thread body live here as plain C++
// so the host-side tests (tests/test_collect.cpp) walk the records exactly as the kernel does.
// 'repetition-gpu' builds the same records on the GPU and runs the same kernel.
#include <cstdint>

#include "kernel/pair.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"

namespace mlfma2d::cuda {

/// Record stride in doubles: 3 + 27 t. A leaf's E1 has at most 9 boxes of at most t sources,
/// so a record [x, y, n, (sx, sy, q) * n] needs at most 3 + 3 * 9t doubles. (The paper uses
/// 3 + 27 CT; t <= CT unless the level offset is negative, and t is what bounds n.) On an
/// adaptive tree a near list can hold more than 9t sources (finer neighbours): the stride is
/// then 3 + 3 n_max, n_max the longest near list, so every record fits.
std::int64_t repetition_stride(const NearFieldProblem& p);

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

/// Launch the repetition kernel, one thread per record (target) of the chunk, on `stream`.
void launch_repetition(const double* records, std::int64_t n_records, std::int64_t stride,
                       const NearFieldOut& out, bool field, void* stream);

/// Write the records of the chunk's targets, in tree order, at records + (i - c.tgt_begin) *
/// stride: [x, y, n, (sx, sy, q) * n] (paper Alg. 3). The padding after 3 + 3n is not written.
void collect_repetition_chunk(const NearFieldProblem& p, const Chunk& c, const double* q_tree,
                              std::int64_t stride, double* records);

}  // namespace mlfma2d::cuda
