#pragma once
// 'shared': the geometry resident on the device; one thread block per group of consecutive near
// leaves, the union of the group's near sources staged once through shared memory, one thread
// per target summing its own leaf's near list from there. The host-side layout and the kernel's
// per-thread bodies live here as plain C++ so tests/test_fast_layout.cpp walks the layout on the
// host exactly as the kernel does.
#include <cstdint>
#include <vector>

#include "kernel/pair.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "runtime/array.hpp"

namespace mlfma2d::cuda {

/// Threads per block of the shared kernel: the most targets of a multi-leaf group.
constexpr int kSharedBlock = 128;
/// Sources staged per tile: x, y, q doubles, 24 KiB of shared memory, so 8 blocks (32 warps)
/// fit on one SM's 228 KiB.
constexpr int kSharedTile = 1024;

/// \brief The 'shared' layout. A *group* is a run of consecutive near leaves (Morton order)
/// given to one thread block; its *union* is the list of the sources of all its leaves' near
/// lists, in tree order, which the block stages through shared memory. Slots are the group's
/// targets, one per thread, leaves ordered by near-list length (descending) so a warp's threads
/// do equal work.
///
/// A group of two or more leaves holds at most `block` targets and a union of at most `tile`
/// sources: one tile, one thread per target, each thread walking its own leaf's ranges in
/// union coordinates. A group of one leaf is *dense*: its union is that leaf's near list, every
/// thread sums every union source, in tiles of `tile`. A leaf of more than `block` targets is
/// cut into dense groups of `block` targets that share its union: a crowded leaf would
/// otherwise keep one block busy for all its batches while the GPU's other SMs idle (clustered
/// sets at small N, where the groups are few).
struct SharedLayout {
  int block = 0, tile = 0;
  std::vector<std::int64_t> group_slot;   ///< groups + 1: slots [group_slot[g], group_slot[g+1])
  std::vector<std::int64_t> union_begin;  ///< groups: union [union_begin[g], union_end[g])
  std::vector<std::int64_t> union_end;    ///< groups (the chunks of one leaf share theirs)
  std::vector<std::uint8_t> group_dense;  ///< 1: a one-leaf group (dense path)
  Array<std::int32_t> union_src;          ///< tree-order source index of each union element
  Array<std::int32_t> slot_tgt;           ///< tree-order target of each slot (a permutation)
  Array<std::int32_t> slot_leaf;          ///< near leaf of each slot's target
  std::vector<std::int64_t> leaf_seg;     ///< near leaves + 1, into seg (= NearField::range_begin)
  std::vector<std::int32_t> leaf_n;       ///< near sources of each leaf
  Array<std::int32_t> seg;                ///< 2 per range: [lo, hi) in the leaf's group's union
  std::int64_t groups() const { return static_cast<std::int64_t>(group_dense.size()); }
};

/// Build the layout. Groups are formed greedily within fixed runs of leaves (so the layout does
/// not depend on the thread count).
SharedLayout shared_layout(const NearFieldProblem& p, int block, int tile);

/// \brief Device arrays of the 'shared' layout plus the sources.
struct SharedArrays {
  const double* sx = nullptr;                 ///< source x, tree order
  const double* sy = nullptr;                 ///< source y, tree order
  const double* q = nullptr;                  ///< charges, tree order (gathered per evaluation)
  const std::int64_t* group_slot = nullptr;   ///< groups + 1
  const std::int64_t* union_begin = nullptr;  ///< groups
  const std::int64_t* union_end = nullptr;    ///< groups
  const std::uint8_t* group_dense = nullptr;  ///< groups
  const std::int32_t* union_src = nullptr;    ///< tree-order source of each union element
  const double* slot_x = nullptr;             ///< target x of each slot
  const double* slot_y = nullptr;             ///< target y of each slot
  const std::int32_t* slot_out = nullptr;     ///< caller index of each slot's target
  const std::int32_t* slot_leaf = nullptr;    ///< leaf of each slot's target
  const std::int64_t* leaf_seg = nullptr;     ///< leaves + 1, into seg
  const std::int32_t* leaf_n = nullptr;       ///< near sources of each leaf
  const std::int32_t* seg = nullptr;          ///< [lo, hi) pairs, union coordinates
  std::int64_t groups = 0;
};

/// Sum over one leaf's near list for target (x, y), the sources staged in (sx, sy, sq) (union
/// coordinates): its n sources lie in the ranges seg[0..1), seg[2..3), ... One flat loop over
/// the n sources (not a loop per range), so threads of one warp with equal n run in lockstep.
template <bool kField>
MLFMA2D_HD void segment_sum(const double* sx, const double* sy, const double* sq, double x,
                            double y, const std::int32_t* seg, std::int32_t n, double* phi,
                            double* ex, double* ey) {
  std::int32_t pos = 0, end = 0;
  for (std::int32_t k = 0; k < n; ++k) {
    while (pos >= end) {  // next range (ranges are non-empty)
      pos = seg[0];
      end = seg[1];
      seg += 2;
    }
    if constexpr (kField) {
      log_pair_field(x, y, sx[pos], sy[pos], sq[pos], phi, ex, ey);
    } else {
      log_pair(x, y, sx[pos], sy[pos], sq[pos], phi);
    }
    ++pos;
  }
}

/// Sum over all n staged sources (a dense group: the union is the leaf's near list).
template <bool kField>
MLFMA2D_HD void dense_sum(const double* sx, const double* sy, const double* sq, double x, double y,
                          std::int32_t n, double* phi, double* ex, double* ey) {
  for (std::int32_t j = 0; j < n; ++j) {
    if constexpr (kField) {
      log_pair_field(x, y, sx[j], sy[j], sq[j], phi, ex, ey);
    } else {
      log_pair(x, y, sx[j], sy[j], sq[j], phi);
    }
  }
}

/// The shared kernel: one block of kSharedBlock threads per group. Writes each target's sums at
/// its caller index (the scatter to caller order is fused into the kernel).
void launch_shared(const SharedArrays& arrays, const NearFieldOut& out, bool field, void* stream);

}  // namespace mlfma2d::cuda
