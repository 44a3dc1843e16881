#pragma once
// 'shared' in self-evaluation with one density (charges, dipoles or both; potential, field or
// Hessian): adjacent leaves summed both ways at once, the pair's terms (its log, 1/d and the
// powers of 1/d) computed once for the two directions (docs/math.md 6.6), as the cpu back end
// does for charges (6.5). The near field splits in three launches on
// one stream:
//   one way  -- the shared kernel (shared.hpp) over each leaf's near list less its mutual
//               leaves: its own block and whatever is not a whole adjacent leaf (W boxes and X
//               leaves moved into the near field); writes every target's output
//   mutual   -- one thread block per mutual pair of leaves (b, c): b's targets in its warps,
//               c's sources in chunks of 32 through shared memory; lane l pairs its target with
//               element (l + k) mod 32 at step k, and the reverse sums move one lane down after
//               each step (a warp shuffle), so after 32 steps lane l holds element l's sums from
//               the warp's 32 targets; the warps' sums added in warp order. b's sums from c and
//               c's from b go to slots of their own
//   combine  -- each target adds its slots, in increasing order of the partner leaf
// Every slot has one writer and every sum a fixed order: the same bits every run. The host-side
// layout and the kernel's per-lane step live here as plain C++ (MLFMA2D_HD), so
// tests/test_mutual_layout.cpp walks them on the host as the kernels do.
#include <cstdint>
#include <vector>

#include "kernel/pair.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "tree/plan.hpp"

namespace mlfma2d::cuda {

/// Threads per block of the mutual kernel: 4 warps, each 32 of b's targets.
constexpr int kMutualBlock = 128;
/// Lanes of a warp: the targets of a warp and the sources of a chunk.
constexpr int kMutualLanes = 32;

/// A pair of mutual leaves is summed both ways when its lanes are this full: the kernel pays
/// 32 x 32 pairs a chunk of each side, however few of them are real, and a pair both ways cost
/// about 1.27 one-way pairs (the reverse sums' fused multiply-adds and shuffles; 1e6 uniform
/// points at CT 512 on the H200 host, the kernel 6.15 -> 4.15 ms with 8 of each target's 9
/// leaves mutual: results/h200/session-2026-11-29f/call1), so below about 1.27 / 2 of the lanes
/// the two one-way sums, whose groups pack small leaves but lose lanes too, are cheaper.
constexpr double kMutualMinLanes = 0.6;

/// Whether the problem's near field takes the mutual path: self-evaluation of one density (more
/// would multiply the slots), of any kinds of sources and outputs.
inline bool shared_mutual_applies(const NearFieldProblem& p) {
  return p.self() && p.densities == 1;
}

/// The fraction of a mutual pair's lanes that hold real pairs (targets nb, sources nc).
inline double mutual_lanes(std::int64_t nb, std::int64_t nc) {
  const auto whole = [](std::int64_t n) {
    return double((n + kMutualLanes - 1) / kMutualLanes * kMutualLanes);
  };
  return double(nb) * double(nc) / (whole(nb) * whole(nc));
}

/// \brief The mutual path's layout. A *task* is a mutual pair of leaves (b, c), b < c: its
/// targets b0 .. b0 + nb and c0 .. c0 + nc (tree order). b's sums from c go to slots fwd ..
/// fwd + nb, c's from b to back .. back + nc. Each leaf's slots are one run of its targets per
/// mutual leaf, in increasing order of that leaf: leaf `comb_t0[k]` (nb = comb_n[k] targets,
/// comb_partners[k] mutual leaves) adds slots comb_slot[k] + m nb + i, m = 0, 1, ..., to its
/// target i. `one` is the near field one way (what the shared kernel sums).
struct MutualLayout {
  NearField one;
  std::vector<std::int32_t> task_b0, task_nb, task_c0, task_nc;
  std::vector<std::int64_t> task_fwd, task_back;
  std::vector<std::int32_t> comb_t0, comb_n, comb_partners;
  std::vector<std::int64_t> comb_slot;
  std::int64_t slots = 0;  ///< per sum
  std::int64_t tasks() const { return static_cast<std::int64_t>(task_b0.size()); }
  std::int64_t leaves() const { return static_cast<std::int64_t>(comb_t0.size()); }
  /// Device bytes of the layout's arrays and of the slots of `sums` sums.
  std::size_t bytes(int sums) const {
    constexpr std::size_t kTask = 4 * sizeof(std::int32_t) + 2 * sizeof(std::int64_t);
    constexpr std::size_t kLeaf = 3 * sizeof(std::int32_t) + sizeof(std::int64_t);
    return std::size_t(tasks()) * kTask + std::size_t(leaves()) * kLeaf +
           sizeof(double) * std::size_t(sums) * std::size_t(slots);
  }
};

/// The layout of a problem shared_mutual_applies() to: the mutual leaves (tree/plan.hpp) whose
/// lanes are at least kMutualMinLanes full.
MutualLayout mutual_layout(const NearFieldProblem& p);

/// Blocks per SM the mutual kernel's launch bounds ask: 8 (64 registers a thread, as the classic
/// shared kernel) where that holds its two sets of sums; under 64 registers ptxas (CUDA 13,
/// sm_90, -v) spilled 16-24 bytes in the Hessian's kernels and 4 in the field of charges and
/// dipoles, which take 6 (85 registers) and spill nothing.
MLFMA2D_HD constexpr int mutual_blocks_per_sm(int order, bool charges, bool dipoles) {
  return order >= kHessian || (order >= kField && charges && dipoles) ? 6 : 8;
}

/// \brief A point's strengths (0 for a kind the problem does not carry).
struct PointStrengths {
  double q = 0, mx = 0, my = 0;
};

/// One step of the mutual kernel for one lane: its target (x, y, strengths own) and the chunk's
/// element (sx, sy, strengths e); the target's sums in *acc, the element's in *back.
template <int kOrder, bool kCharge, bool kDipole>
MLFMA2D_HD void mutual_step(double x, double y, const PointStrengths& own, double sx, double sy,
                            const PointStrengths& e, const TableHalfLog& log, PairSums* acc,
                            PairSums* back) {
  PairTerms t;
  if (!pair_terms<kOrder, kCharge, kDipole>(x - sx, y - sy, &t, log)) return;
  add_pair<kOrder, kCharge, kDipole>(t, e.q, e.mx, e.my, acc);
  add_pair_back<kOrder, kCharge, kDipole>(t, own.q, own.mx, own.my, back);
}

/// Sum k of s (k < kPairSums[order]): phi, ex, ey, hxx, hxy.
MLFMA2D_HD double& mutual_sum(PairSums& s, int k) {
  return k == 0 ? s.phi : k == 1 ? s.ex : k == 2 ? s.ey : k == 3 ? s.hxx : s.hxy;
}

/// The chunk element lane `lane` pairs with at step k.
MLFMA2D_HD constexpr int mutual_element(int lane, int k) {
  return (lane + k) % kMutualLanes;
}
/// The lane whose reverse sums lane `lane` takes after each step: the one that held, at this
/// step, the element `lane` pairs with at the next.
MLFMA2D_HD constexpr int mutual_from_lane(int lane) {
  return (lane + 1) % kMutualLanes;
}

/// \brief Device arrays of the mutual path.
struct MutualArrays {
  const double* sx = nullptr;  ///< tree order (the targets are the sources)
  const double* sy = nullptr;
  const std::int32_t *task_b0 = nullptr, *task_nb = nullptr, *task_c0 = nullptr, *task_nc = nullptr;
  const std::int64_t *task_fwd = nullptr, *task_back = nullptr;
  const std::int32_t *comb_t0 = nullptr, *comb_n = nullptr, *comb_partners = nullptr;
  const std::int64_t* comb_slot = nullptr;
  const std::int32_t* tgt_out = nullptr;  ///< caller index of each tree-ordered target (ChargeIo's)
  double* slot = nullptr;                 ///< sums x slots: sum s of slot k at s * slots + k
  std::int64_t slots = 0, tasks = 0, leaves = 0;
};

/// The mutual kernel (the strengths in tree order: charges q, moments mx, my; null for a kind
/// not carried), then the combine into `out` (caller order, what the one-way kernel wrote), on
/// `stream`.
void launch_mutual(const MutualArrays& arrays, const double* q, const double* mx, const double* my,
                   const NearFieldOut& out, int order, void* stream);

}  // namespace mlfma2d::cuda
