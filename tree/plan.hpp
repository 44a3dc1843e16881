#pragma once
// The interaction plan: what each box exchanges with which, as flat arrays built once from the
// tree. The lists of Carrier, Greengard and Rokhlin (docs/math.md section 4), for a box b:
//   U(b) -- b a leaf: the leaves adjacent to b (any size, b included)           -> P2P
//   V(b) -- children of the colleagues of b's parent, not adjacent to b         -> M2L
//   W(b) -- b a leaf: descendants of b's colleagues not adjacent to b whose
//           parent is                                                             -> M2P
//   X(b) -- leaves adjacent to b's parent but not to b, coarser than b (the dual
//           of W)                                                                 -> P2L
// Every (target, source) pair is then counted once: in U, or in exactly one V, W or X list of
// the target's leaf or one of its ancestors (the local expansion passes down by L2L). On the
// uniform tree every leaf sits on level L, so W and X are empty and U is the E1 list.
// A W box with few sources, or an X leaf seen from a leaf with few targets, is cheaper as P2P:
// build_plan moves those into the near field (PlanOptions::p2p_below).
#include <array>
#include <cstdint>
#include <vector>

#include "tree/tree.hpp"

namespace mlfma2d {

/// The 40 relative offsets (dx, dy) of an interaction-list box from its target box, with
/// |dx|, |dy| <= 3 and max(|dx|, |dy|) >= 2. m2l_offset_index maps (dx, dy) to 0..39.
constexpr int kM2LOffsets = 40;
int m2l_offset_index(int dx, int dy);
std::array<int, 2> m2l_offset(int index);

/// \brief M2L work of one level, target by target: target box b's pairs (b, src[i]) are i in
/// [target_begin[b], target_begin[b+1]), in increasing order of their offset (offset[i], the
/// m2l_offset_index of src[i] from b). M2L walks a thread's range of targets in order: each local
/// expansion has one writer and adds its offsets in the same order whatever the thread count.
struct M2LLevel {
  std::vector<std::int64_t> target_begin;  ///< boxes of the level + 1
  std::vector<std::int32_t> src;
  std::vector<std::uint8_t> offset;
  std::size_t pairs() const { return src.size(); }
  std::int64_t pairs_of(std::size_t b) const { return target_begin[b + 1] - target_begin[b]; }
};

/// \brief A list of boxes per item (CSR): item i's boxes are box[begin[i] .. begin[i+1]).
struct BoxLists {
  std::vector<std::int64_t> begin;
  std::vector<BoxRef> box;
  std::size_t items() const { return begin.empty() ? 0 : begin.size() - 1; }
};

/// \brief The near field (P2P) as plain data: what every back end works on, nothing of the tree
/// ("the kernel never sees the tree"). Indices are into the tree-ordered points.
///
/// The *near leaves* are the leaves that hold targets, in Morton order; their target ranges tile
/// the tree-ordered targets. Near leaf b sums, for each of its targets, over the sources of its
/// near list written as source ranges: [range[2k], range[2k+1]) for k in
/// [range_begin[b], range_begin[b+1]). Ranges are ascending, disjoint and merged (a range ends
/// before the next one starts), so a leaf whose neighbours follow one another in Morton order
/// has fewer ranges than neighbours; the order of the sources is their tree order.
struct NearField {
  std::vector<std::int64_t>
      leaf_tgt;  ///< near leaves + 1: targets of b are [leaf_tgt[b], leaf_tgt[b+1])
  std::vector<std::int64_t>
      range_begin;  ///< near leaves + 1: ranges of b are [range_begin[b], range_begin[b+1])
  std::vector<std::int64_t> range;    ///< 2 per range: [lo, hi) of tree-ordered sources
  std::vector<std::int64_t> sources;  ///< near leaves: sources in b's near list (sum of its ranges)
  std::uint64_t pairs = 0;            ///< sum over near leaves of targets x near sources
  std::size_t leaves() const { return leaf_tgt.empty() ? 0 : leaf_tgt.size() - 1; }
  std::int64_t targets(std::size_t b) const { return leaf_tgt[b + 1] - leaf_tgt[b]; }
  /// Most sources in one near list.
  std::int64_t max_sources() const;
};

/// \brief How build_plan trades far-field work for near-field pairs.
struct PlanOptions {
  /// A W box with at most this many sources, or an X leaf seen from a leaf with at most this
  /// many targets, goes to the near field (P2P) instead of M2P / P2L. 0: never.
  std::int64_t p2p_below = 0;
};

/// \brief Near and far interaction lists.
struct Plan {
  NearField near;
  /// V lists: m2l[l] for l = 1..L (levels below 3 are empty).
  std::vector<M2LLevel> m2l;
  /// X lists: p2l[l] for l = 1..L, items = the boxes of level l, entries = source leaves.
  std::vector<BoxLists> p2l;
  /// The boxes whose X list is not empty, every level, level by level in Morton order: what P2L
  /// runs over at once (one team for all levels: a deep tree has many levels of few boxes).
  std::vector<BoxRef> p2l_boxes;
  /// W lists: items = the near leaves, entries = boxes whose multipoles are evaluated there.
  BoxLists m2p;
  /// The tree box of each near leaf.
  std::vector<BoxRef> near_box;
  std::uint64_t m2l_pairs = 0;  ///< M2L translations
  std::uint64_t p2l_terms = 0;  ///< sources x boxes of the X lists
  std::uint64_t m2p_terms = 0;  ///< targets x boxes of the W lists
};

Plan build_plan(const Tree& tree, int threads, const PlanOptions& options = {});

/// \brief Self-evaluation (the targets are the sources): near leaves b != c are *mutual* when
/// c's targets lie whole in one range of b's near list and b's in one of c's (adjacent leaves of
/// the U lists: adjacency is mutual). Their pairs can be summed both ways at once, the pair's
/// log and 1/d computed once (docs/math.md 6.5). Leaf b's mutual leaves are
/// leaf[begin[b] .. begin[b+1]), ascending; the relation is symmetric.
struct MutualLeaves {
  std::vector<std::int64_t> begin;  ///< near leaves + 1
  std::vector<std::int64_t> leaf;
  std::int64_t of(std::size_t b) const { return begin[b + 1] - begin[b]; }
};

/// Every near leaf's mutual leaves.
MutualLeaves mutual_leaves(const NearField& near);

/// The mutual leaves for which keep(b, c) holds (keep must be symmetric in b and c).
template <class Keep>
MutualLeaves keep_mutual(const MutualLeaves& m, Keep&& keep) {
  MutualLeaves out;
  out.begin.push_back(0);
  for (std::size_t b = 0; b + 1 < m.begin.size(); ++b) {
    for (std::int64_t k = m.begin[b]; k < m.begin[b + 1]; ++k)
      if (keep(std::int64_t(b), m.leaf[std::size_t(k)])) out.leaf.push_back(m.leaf[std::size_t(k)]);
    out.begin.push_back(std::int64_t(out.leaf.size()));
  }
  return out;
}

/// The near field one way: each leaf's near list less the targets of its mutual leaves in `m`
/// (summed both ways elsewhere); its ranges ascending and disjoint, sources and pairs recounted.
NearField one_way_near_field(const NearField& near, const MutualLeaves& m);

}  // namespace mlfma2d
