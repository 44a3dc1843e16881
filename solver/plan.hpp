#pragma once
// The interaction plan: near-field (E1) lists of the leaves and M2L interaction lists of every
// level, as CSR arrays built once from the tree.
#include <array>
#include <cstdint>
#include <vector>

#include "solver/tree.hpp"

namespace mlfma2d {

/// The 40 relative offsets (dx, dy) of an interaction-list box from its target box, with
/// |dx|, |dy| <= 3 and max(|dx|, |dy|) >= 2. m2l_offset_index maps (dx, dy) to 0..39.
constexpr int kM2LOffsets = 40;
int m2l_offset_index(int dx, int dy);
std::array<int, 2> m2l_offset(int index);

/// \brief M2L work of one level, grouped by offset: for offset o, the pairs
/// (tgt[i], src[i]) for i in [begin[o], begin[o+1]) -- each target at most once per offset,
/// so one offset's pairs can be processed in parallel without races. Within an offset the pairs
/// are sorted by target.
struct M2LLevel {
  std::vector<std::int64_t> begin;  ///< kM2LOffsets + 1 entries
  std::vector<std::int32_t> tgt, src;
};

/// \brief Near and far interaction lists.
struct Plan {
  /// Near field (E1) of leaf b: leaves near_box[near_begin[b] .. near_begin[b+1]) that hold
  /// sources (b itself included if it holds any), in Morton order. Size leaves+1; a leaf with no
  /// targets has an empty list.
  std::vector<std::int64_t> near_begin;
  std::vector<std::int32_t> near_box;
  /// m2l[l] for l = 1..L (levels below 3 are empty).
  std::vector<M2LLevel> m2l;
  std::uint64_t near_pairs = 0;  ///< sum over leaves of targets x E1 sources
  std::uint64_t m2l_pairs = 0;
};

Plan build_plan(const Tree& tree, int threads);

}  // namespace mlfma2d
