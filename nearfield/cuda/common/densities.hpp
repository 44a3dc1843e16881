#pragma once
// Several densities in one pass, for the kernels of the resident back ends ('shared',
// 'repetition-gpu'). An evaluation's nd densities are summed in batches; a kernel is compiled for
// a batch width kNd in {1, 2, 4, 8} and holds kNd densities' sums in registers. The terms of a
// pair (kernel/pair.hpp's pair_terms: log r2, g = 1/d and its powers) are computed once and
// applied to every density of the batch (add_pair). Plain C++ (MLFMA2D_HD), so that
// tests/test_fast_layout.cpp walks it on the host as the kernels do.
//
// The batches: whole batches of 8, then the rest r (1..7) as ONE batch of the narrowest width
// >= r with r densities active (3 runs as a 4-wide pass with 3 active, not as 2 + 1): a pass
// pays the pair's terms once -- a log and a division, 15-50 flops -- against 1 to about 25
// flops per density, so one wider pass beats two narrower ones.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel/pair.hpp"
#include "mlfma2d/errors.hpp"
#include "nearfield/cuda/common/backend_util.hpp"

namespace mlfma2d::cuda {

/// The widest batch a kernel is compiled for.
constexpr int kMaxBatch = 8;

/// \brief One pass: densities [first, first + count), summed by the kernel of width `width`
/// (1, 2, 4 or 8; count <= width).
struct DensityBatch {
  int first = 0, count = 1, width = 1;
};

/// The compiled width for r active densities (1 <= r <= kMaxBatch): the narrowest >= r.
MLFMA2D_HD constexpr int batch_width(int r) {
  return r <= 1 ? 1 : r <= 2 ? 2 : r <= 4 ? 4 : 8;
}

/// nd densities as passes: whole batches of kMaxBatch, then the rest in one narrower pass.
inline std::vector<DensityBatch> density_batches(int nd) {
  std::vector<DensityBatch> out;
  for (int first = 0; first < nd; first += kMaxBatch) {
    const int count = nd - first < kMaxBatch ? nd - first : kMaxBatch;
    out.push_back(DensityBatch{first, count, batch_width(count)});
  }
  return out;
}

/// The widest pass of nd densities (what a layout built once for all passes must fit).
inline int widest_batch(int nd) {
  return nd >= kMaxBatch ? kMaxBatch : batch_width(nd);
}

/// Strengths per density: q, then mx, my, for the kinds carried.
MLFMA2D_HD constexpr int channels_per_density(bool charges, bool dipoles) {
  return (charges ? 1 : 0) + (dipoles ? 2 : 0);
}

/// Adds the pair (target (x, y), source (sx, sy)) to the sums of the batch's densities: the
/// pair's terms once, then for each active density d < count (count <= kNd; every one when
/// kNd == 1) its strengths, channel k (q, mx, my in the order carried) at
/// ch[(d * kPer + k) * stride], applied to acc[d]. The log by `hl` (kernel/pair.hpp's
/// TableHalfLog: the kernel's table in shared memory).
template <int kOrder, bool kCharge, bool kDipole, int kNd>
MLFMA2D_HD void add_source(double x, double y, double sx, double sy, const double* ch,
                           std::int64_t stride, int count, const TableHalfLog& hl, PairSums* acc) {
  constexpr int kPer = channels_per_density(kCharge, kDipole);
  constexpr int kMx = kCharge ? 1 : 0;
  PairTerms t;
  if (!pair_terms<kOrder, kCharge, kDipole>(x - sx, y - sy, &t, hl)) return;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int d = 0; d < kNd; ++d) {
    if (kNd > 1 && d >= count) break;  // uniform over a block: the inactive tail is skipped
    const double* c = ch + std::int64_t(d * kPer) * stride;
    add_pair<kOrder, kCharge, kDipole>(t, kCharge ? c[0] : 0.0, kDipole ? c[kMx * stride] : 0.0,
                                       kDipole ? c[(kMx + 1) * stride] : 0.0, &acc[d]);
  }
}

/// Writes one target's sums of the batch's active densities: out.X[d * stride + at] for phi,
/// ex and ey (order >= 1, where out has them: with the Hessian alone they are not wanted), hxx
/// and hxy (order 2).
template <int kOrder, int kNd>
MLFMA2D_HD void store_sums(const PairSums* acc, const NearFieldOut& out, std::int64_t stride,
                           std::int64_t at, int count) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int d = 0; d < kNd; ++d) {
    if (kNd > 1 && d >= count) break;
    const std::int64_t k = std::int64_t(d) * stride + at;
    out.phi[k] = acc[d].phi;
    if (kOrder == kField || (kOrder > kField && out.ex)) {
      out.ex[k] = acc[d].ex;
      out.ey[k] = acc[d].ey;
    }
    if (kOrder >= kHessian) {
      out.hxx[k] = acc[d].hxx;
      out.hxy[k] = acc[d].hxy;
    }
  }
}

/// Calls f(order, charges, dipoles, width) with std::integral_constant arguments for a pass of
/// the given width (1, 2, 4 or 8): the compile-time form of a batch,
///   [&](auto o, auto c, auto d, auto w) { kernel<decltype(o)::value, ..., decltype(w)::value> }
template <class F>
void dispatch_batch(int order, bool charges, bool dipoles, int width, F&& f) {
  dispatch_pair(order, charges, dipoles, [&](auto o, auto c, auto d) {
    switch (width) {
      case 1:
        f(o, c, d, std::integral_constant<int, 1>{});
        break;
      case 2:
        f(o, c, d, std::integral_constant<int, 2>{});
        break;
      case 4:
        f(o, c, d, std::integral_constant<int, 4>{});
        break;
      case 8:
        f(o, c, d, std::integral_constant<int, 8>{});
        break;
      default:
        throw RuntimeFailure("internal error: no kernel for a batch of " + std::to_string(width) +
                             " densities");
    }
  });
}

}  // namespace mlfma2d::cuda
