#pragma once
// The global tree's shape, grown level by level from counts reduced over the ranks (docs/
// distributed.md, "The tree"): every rank sorts its own points by their keys in the global root
// box (the one-process rule, so the keys agree with the one-process tree's); a box's count is
// the sum of every rank's, and it is split by the one-process rules (adaptive: while it holds
// more than CT points; uniform: down to the level CT fixes, then the level offset). Every rank
// then knows every box -- keys, parents, children, leaves and the ranges of the global Morton
// order each box spans -- and where its own sorted points fall in each box. Memory: the boxes,
// about 2.2 N / CT of them, 56 bytes each; no points.
#include <cstdint>
#include <string>
#include <vector>

#include "distributed/comm.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// \brief This rank's points, sorted by their keys in the global root box.
struct LocalPoints {
  RootBox box;
  bool self = true;              ///< the targets are the sources (on every rank)
  KeyedPoints sources, targets;  ///< targets empty when self
  std::int64_t total_sources = 0, total_targets = 0;  ///< over every rank
  std::int64_t n_targets() const {
    return std::int64_t(self ? sources.key.size() : targets.key.size());
  }
};

/// The global root box (the extents of every rank's points reduced, then the one-process rule)
/// and this rank's points sorted in it. Collective. Throws (on every rank) when no rank has a
/// source, or, with separate targets, no rank has a target.
LocalPoints sort_local_points(const Comm& comm, PointsRef sources, PointsRef targets, bool self,
                              int threads, Traffic* t);

/// \brief The global tree's shape.
struct GlobalShape {
  /// Levels, leaves and figures (t, D, L, CT, capped) of the global tree; its source and target
  /// ranges are positions in the global Morton order of all ranks' points (target ranges are the
  /// source ranges when self). No points.
  Tree tree;
  /// local[l]: this rank's sorted points in each box of level l (the source and target ranges of
  /// LocalPoints' arrays; nothing else of the Level is set).
  std::vector<Level> local;
};

/// Grows the global shape of the adaptive tree (level offset >= 0) or the uniform tree (any
/// offset) with leaf capacity ct. Collective; its decisions read global counts only, so every
/// rank takes the same ones (and throws the same InvalidInput for an offset past the root or
/// the deepest level, or a negative offset on the adaptive tree).
GlobalShape grow_global_shape(const Comm& comm, const LocalPoints& points, int ct, int level_offset,
                              TreeKind kind, std::string* warning, int threads, Traffic* t);

}  // namespace mlfma2d
