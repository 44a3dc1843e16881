#pragma once
// Host-side layouts of the back ends 'shared' and 'repetition-gpu' (docs/performance-gpu.md),
// built once per geometry in setup() and uploaded once. Plain C++ with OpenMP, apart from the
// CUDA code so tests/test_fast_layout.cpp can walk them on the host without a GPU.
//
// Both start from the E1 list of each leaf written as merged source ranges of the tree-ordered
// sources: the E1 boxes are Morton-sorted leaves whose source ranges are contiguous in tree
// order, so a leaf's E1 is at most 9 ranges, fewer where neighbouring boxes follow one another.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "solver/plan.hpp"
#include "solver/tree.hpp"

namespace mlfma2d::cuda {

/// Throws InvalidInput unless n_sources and n_targets fit int32 (the device index arrays).
void check_int32_points(const Tree& tree, const std::string& backend);

/// \brief The E1 sources of every leaf as merged tree-order ranges, in the plan's (Morton) order.
struct LeafSegments {
  std::vector<std::int64_t> begin;  ///< leaves + 1: leaf b's segments are [begin[b], begin[b+1])
  std::vector<std::int32_t> seg;    ///< 2 per segment: [lo, hi), tree-order source indices
  std::vector<std::int32_t> count;  ///< E1 sources of each leaf (sum of its segment lengths)
  std::int64_t segments() const { return static_cast<std::int64_t>(seg.size() / 2); }
};

/// E1 ranges of every leaf; adjacent ranges (hi == next lo) are merged. Throws RuntimeFailure
/// when the leaves do not tile the targets (near_source_counts' check).
LeafSegments leaf_segments(const Tree& tree, const Plan& plan, int threads);

/// tgt_leaf[i] = the leaf holding tree-ordered target i.
std::vector<std::int32_t> target_leaves(const Tree& tree, int threads);

// --- shared

/// How 'shared' maps leaves to thread blocks.
enum class SharedMode {
  kGroups,          ///< consecutive leaves per block, leaves sorted by E1 size (the default)
  kGroupsUnsorted,  ///< consecutive leaves per block, tree order
  kLeaves,          ///< one block per leaf (the textbook layout)
};
const char* shared_mode_name(SharedMode mode);

/// \brief The 'shared' layout. A *group* is a run of consecutive leaves (Morton order) given to
/// one thread block; its *union* is the list of the sources of all its leaves' E1 boxes, in tree
/// order, which the block stages through shared memory. Slots are the group's targets, one per
/// thread, leaves ordered by E1 size (descending) so a warp's threads do equal work.
///
/// A group of two or more leaves holds at most `block` targets and a union of at most `tile`
/// sources: one tile, one thread per target, each thread walking its own leaf's E1 ranges in
/// union coordinates. A group of one leaf is *dense*: its union is that leaf's E1, every thread
/// sums every union source, in tiles of `tile` and batches of `block` targets as needed.
struct SharedLayout {
  int block = 0, tile = 0;
  SharedMode mode = SharedMode::kGroups;
  std::vector<std::int64_t> group_slot;   ///< groups + 1: slots [group_slot[g], group_slot[g+1])
  std::vector<std::int64_t> group_union;  ///< groups + 1: union [group_union[g], ...[g+1])
  std::vector<std::uint8_t> group_dense;  ///< 1: a one-leaf group (dense path)
  std::vector<std::int32_t> union_src;    ///< tree-order source index of each union element
  std::vector<std::int32_t> slot_tgt;     ///< tree-order target of each slot (a permutation)
  std::vector<std::int32_t> slot_leaf;    ///< leaf of each slot's target
  std::vector<std::int64_t> leaf_seg;     ///< leaves + 1, into seg (= LeafSegments::begin)
  std::vector<std::int32_t> leaf_n;       ///< E1 sources of each leaf
  std::vector<std::int32_t> seg;          ///< 2 per segment: [lo, hi) in the leaf's group's union
  std::int64_t groups() const { return static_cast<std::int64_t>(group_dense.size()); }
};

/// Build the layout. Groups are formed greedily within fixed runs of leaves (so the layout does
/// not depend on the thread count).
SharedLayout shared_layout(const Tree& tree, const Plan& plan, const LeafSegments& segments,
                           SharedMode mode, int block, int tile, int threads);

}  // namespace mlfma2d::cuda
