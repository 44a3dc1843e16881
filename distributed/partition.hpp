#pragma once
// The partition (docs/distributed.md, "The partition"): the global tree's leaves in Morton order
// cut into contiguous ranges, one per rank, of equal predicted cost. A first cut by points gives
// each rank leaves to plan; each rank prices its leaves by the cost model (its near pairs, its
// points' expansions, its share of its boxes' translations); the prices of every leaf, gathered,
// give the final cut. A rank plans its own leaves on the global shape with the target ranges cut
// to its own targets (RestrictedTargets): build_plan then visits only its boxes.
#include <cstdint>
#include <vector>

#include "farfield/expansions.hpp"
#include "solver/cost_model.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// \brief Which leaves each rank owns: rank r owns leaves [first[r], first[r + 1]) of the global
/// Morton order (tree.leaves).
struct Partition {
  std::vector<std::int64_t> first;  ///< ranks + 1
  int ranks() const { return int(first.size()) - 1; }
  std::int64_t begin(int r) const { return first[r]; }
  std::int64_t end(int r) const { return first[r + 1]; }
  /// The rank owning leaf g.
  int owner(std::int64_t g) const;
};

/// The leaves cut into `ranks` contiguous ranges of nearly equal total weight: leaf g goes to
/// the rank whose share holds the middle of its weight.
Partition cut_leaves(const std::vector<double>& weight, int ranks);

/// Each leaf's points (sources and targets; the sources when self): the first cut's weights.
std::vector<double> leaf_points(const Tree& shape);

/// \brief The global shape's target ranges cut to one rank's leaves [first, end) while it lives
/// (the shape's own ranges come back when it goes): positions from the rank's first target, so
/// the targets of its leaves are [0, m) and every other box has none.
class RestrictedTargets {
 public:
  RestrictedTargets(Tree* shape, std::int64_t first, std::int64_t end);
  ~RestrictedTargets();
  RestrictedTargets(const RestrictedTargets&) = delete;
  RestrictedTargets& operator=(const RestrictedTargets&) = delete;
  /// The rank's first target and source in the global Morton order, and their counts.
  std::int64_t target_offset() const { return t_lo_; }
  std::int64_t targets() const { return t_hi_ - t_lo_; }
  std::int64_t source_offset() const { return s_lo_; }
  std::int64_t sources() const { return s_hi_ - s_lo_; }
  /// Box b of level l's targets on every rank.
  std::int64_t global_targets(int l, std::size_t b) const {
    return saved_end_[l][b] - saved_begin_[l][b];
  }

 private:
  Tree* shape_;
  std::int64_t s_lo_ = 0, s_hi_ = 0, t_lo_ = 0, t_hi_ = 0;
  std::vector<std::vector<std::int64_t>> saved_begin_, saved_end_;
};

/// \brief The work of a rank's leaves [first, end) (their restricted plan on the shape), in
/// the cost model's units (FarWork, pairs, points): each leaf's own (its near pairs, its points'
/// P2M, L2P and M2P) and a share of every box above it in proportion to its targets (the box's
/// M2L pairs, X-list terms, and the box itself: an M2M and an L2L). Summed over the ranks, the
/// shares make each box's work once.
struct LeafWork {
  std::vector<FarWork> far;
  std::vector<double> pairs, points;
  FarWork total_far;  ///< the sums over the leaves
  double total_pairs = 0, total_points = 0;
};
LeafWork leaf_work(const Tree& shape, const RestrictedTargets& restricted, const Plan& plan,
                   std::int64_t first, std::int64_t end);

/// Each leaf's predicted seconds: the model's prediction of its work, without the per-evaluation
/// fixed cost and without overlap (a leaf's near and far work add up).
std::vector<double> leaf_costs(const LeafWork& work, const CostModel& model, int p,
                               const FarShape& far);

/// Cost-model constants for a partition when none is measured or cached: their ratios matter
/// only (the constants of a 2-core x86-64 machine at p = 18, results/dev-machine/mpi24/).
CostModel default_partition_model();

}  // namespace mlfma2d
