#pragma once
// 'shared': the geometry resident on the device; one thread block per group of consecutive near
// leaves, the union of the group's near sources staged once through shared memory (coordinates
// and the strengths of a batch of densities), one thread per target summing its own leaf's near
// list from there for every density of the batch. The host-side layout and the kernel's
// per-thread bodies live here as plain C++ so tests/test_fast_layout.cpp walks the layout on the
// host exactly as the kernel does.
#include <cstdint>
#include <vector>

#include "kernel/pair.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/common/backend_util.hpp"
#include "nearfield/cuda/common/densities.hpp"
#include "runtime/array.hpp"

namespace mlfma2d::cuda {

/// Threads per block of the shared kernel: the most targets of a multi-leaf group.
constexpr int kSharedBlock = 128;
/// Sources staged per tile of the classic kernel (one density of charges, potential or field):
/// x, y, q doubles, 24 KiB of shared memory, so 8 blocks (32 warps) fit on one SM's 228 KiB.
constexpr int kSharedTile = 1024;

/// Blocks per SM the launch bounds of the kernel for a batch of `width` densities with `per`
/// strengths each (1: q, 2: mx, my, 3: all) at order `order` ask: as many as its registers
/// allow, 65536 / (128 x blocks) a thread. The classic kernel: 8 (64 registers; the log's
/// dependent FMA chain wants the 32 warps). A wider batch holds width x (1, 3 or 5) sums in
/// registers (2 each) beside the pair's terms: fewer blocks, each doing width densities' work
/// per pair, independent chains that hide latency as more warps would. The estimate below
/// follows the counts ptxas (CUDA 13, sm_90) took for the 36 kernels without a bound (53-138
/// registers); under the bounds it gives, none of them spills (ptxas -v).
MLFMA2D_HD constexpr int shared_blocks_per_sm(int order, int per, int width) {
  const int sums = width * kPairSums[order];
  // about 50 registers for the pair (the log's and the division's temporaries, the target,
  // the indices), 2 a sum, 2 a term beyond the log: g with dipoles, g^2 from the field on
  const int terms = (per >= 2 ? 2 : 0) + order * 2 + (per >= 2 && order >= 1 ? order * 2 : 0);
  const int regs = 50 + 2 * sums + 2 * terms;
  return regs <= 64 ? 8 : regs <= 80 ? 6 : regs <= 96 ? 5 : regs <= 128 ? 4 : regs <= 168 ? 3 : 2;
}

/// Sources per tile of that kernel: x, y and width x per strengths a source, in the shared
/// memory one block may take at shared_blocks_per_sm() blocks per SM (228 KiB an SM, 1 KiB a
/// block kept by the system, at most 48 KiB of static shared memory a block, less the log's
/// table), a multiple of 32.
/// The classic kernel keeps its 1024.
MLFMA2D_HD constexpr int shared_tile(int order, int per, int width) {
  if (width == 1 && per == 1 && order <= 1) return kSharedTile;
  const int blocks = shared_blocks_per_sm(order, per, width);
  // less the log's table each block keeps (TableHalfLog)
  constexpr int kLogBytes = 2 * kHalfLogTable * 8;
  const int per_block = 228 * 1024 / blocks - 1024 - kLogBytes;
  const int bytes = per_block < 48 * 1024 - kLogBytes ? per_block : 48 * 1024 - kLogBytes;
  return bytes / (8 * (2 + width * per)) / 32 * 32;
}

/// \brief The 'shared' layout. A *group* is a run of consecutive near leaves (Morton order)
/// given to one thread block; its *union* is the list of the sources of all its leaves' near
/// lists, in tree order, which the block stages through shared memory. Slots are the group's
/// targets, one per thread, leaves ordered by near-list length (descending) so a warp's threads
/// do equal work.
///
/// A group of two or more leaves holds at most `block` targets and a union of at most `tile`
/// sources: one tile, one thread per target, each thread walking its own leaf's ranges in
/// union coordinates. A group of one leaf is *dense*: its union is that leaf's near list, every
/// thread sums every union source, in tiles of the kernel's (any union size: `tile` bounds the
/// multi-leaf groups alone). A leaf of more than `block` targets is
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
/// The layout of `near` in place of the problem's near field (the same leaves and targets: the
/// mutual path's one-way near field, mutual.hpp).
SharedLayout shared_layout(const NearFieldProblem& p, const NearField& near, int block, int tile);

/// The tile a problem's layout is built for: the least of the tiles of the kernels its passes
/// run (density_batches()), so every multi-leaf group's union fits each of them.
inline int shared_layout_tile(const NearFieldProblem& p) {
  const int per = channels_per_density(p.charges, p.dipoles);
  int tile = 0;
  for (const DensityBatch& b : density_batches(p.densities)) {
    const int t = shared_tile(p.order(), per, b.width);
    tile = tile == 0 || t < tile ? t : tile;
  }
  return tile;
}

/// \brief Device arrays of the 'shared' layout plus the sources' coordinates.
struct SharedArrays {
  const double* sx = nullptr;                 ///< source x, tree order
  const double* sy = nullptr;                 ///< source y, tree order
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

/// \brief One pass: the strengths of its batch of densities (tree order, from its first
/// density on; null for a kind not carried) and where its outputs go.
struct SharedPass {
  const double* q = nullptr;        ///< charges
  const double* mx = nullptr;       ///< dipole moments, x
  const double* my = nullptr;       ///< dipole moments, y
  std::int64_t density_stride = 0;  ///< from one density's strengths to the next's
  std::int64_t out_stride = 0;      ///< from one density's outputs to the next's
  int count = 1;                    ///< active densities (<= the kernel's width)
};

/// A read of data that stays constant during the kernel (the read-only cache on the device).
MLFMA2D_HD double read_only(const double* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

/// Stages tree-ordered source j's strengths of the pass's `count` densities as element e of a
/// tile: channel c = d x per + k (density d, kind k: q, mx, my of those carried) at
/// w[c * tile + e].
template <bool kCharge, bool kDipole, int kNd>
MLFMA2D_HD void stage_strengths(const SharedPass& b, std::int32_t j, double* w, int tile, int e) {
  constexpr int kPer = channels_per_density(kCharge, kDipole);
  constexpr int kMx = kCharge ? 1 : 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int d = 0; d < kNd; ++d) {
    if (kNd > 1 && d >= b.count) break;
    const std::int64_t at = d * b.density_stride + j;
    double* c = w + d * kPer * tile + e;
    if (kCharge) c[0] = read_only(b.q + at);
    if (kDipole) {
      c[kMx * tile] = read_only(b.mx + at);
      c[(kMx + 1) * tile] = read_only(b.my + at);
    }
  }
}

/// \brief Sources staged in a tile (shared memory, in the kernel): element e's coordinates
/// x[e], y[e] and its strengths, channel c (density d, kind k: c = d x per + k) at
/// w[c * stride + e].
struct Staged {
  const double* x = nullptr;
  const double* y = nullptr;
  const double* w = nullptr;
  std::int64_t stride = 0;
  TableHalfLog log;  ///< the log's table (staged beside the sources)
};

/// Sum over one leaf's near list for target (x, y), its n sources staged (union coordinates) in
/// the ranges seg[0..1), seg[2..3), ..., into the sums of the batch's `count` densities. One
/// flat loop over the n sources (not a loop per range), so threads of one warp with equal n run
/// in lockstep.
template <int kOrder, bool kCharge, bool kDipole, int kNd>
MLFMA2D_HD void segment_sum(const Staged& s, double x, double y, const std::int32_t* seg,
                            std::int32_t n, int count, PairSums* acc) {
  std::int32_t pos = 0, end = 0;
  for (std::int32_t k = 0; k < n; ++k) {
    while (pos >= end) {  // next range (ranges are non-empty)
      pos = seg[0];
      end = seg[1];
      seg += 2;
    }
    add_source<kOrder, kCharge, kDipole, kNd>(x, y, s.x[pos], s.y[pos], s.w + pos, s.stride, count,
                                              s.log, acc);
    ++pos;
  }
}

/// Sum over all n staged sources (a dense group: the union is the leaf's near list).
template <int kOrder, bool kCharge, bool kDipole, int kNd>
MLFMA2D_HD void dense_sum(const Staged& s, double x, double y, std::int32_t n, int count,
                          PairSums* acc) {
  // Four sources a step: independent pairs whose log chains interleave. The kernel 4-9 % faster
  // under the same launch bounds, no spills in any of the 36 kernels (H200 host, 1e6 uniform, CT
  // 512: 6.55 -> 6.18 ms, nd = 8 11.68 -> 10.69; by 2: 6.25, 10.65;
  // results/h200/session-2026-11-29b/call6).
#if defined(__CUDA_ARCH__)
#pragma unroll 4
#endif
  for (std::int32_t j = 0; j < n; ++j)
    add_source<kOrder, kCharge, kDipole, kNd>(x, y, s.x[j], s.y[j], s.w + j, s.stride, count, s.log,
                                              acc);
}

/// The shared kernel: one block of kSharedBlock threads per group, for the pass's `count`
/// densities (the kernel of width `width`) of the kinds carried at `order` (kernel/pair.hpp).
/// Writes each target's sums at its caller index in `out` (the pass's first density; the
/// scatter to caller order is fused into the kernel).
void launch_shared(const SharedArrays& arrays, const SharedPass& pass, const NearFieldOut& out,
                   int order, bool charges, bool dipoles, int width, void* stream);

}  // namespace mlfma2d::cuda
