#pragma once
// The far field of one geometry as both solvers run it (the one-process Solver, and each rank of
// the distributed solver between its exchanges): the operators, the expansions and the tree-order
// buffers, built once; per evaluation the strengths gathered into tree order, the upward pass
// (P2M, M2M), the interaction lists and the downward pass (M2L, P2L, L2L, L2P, M2P), one timed
// scope per operator, and the far field added to the caller-order outputs (docs/math.md sections
// 3 and 4).
#include "farfield/expansions.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/array.hpp"
#include "solver/points.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// \brief The far field's operators, expansions and tree-order buffers for one tree and plan.
class FarField {
 public:
  /// `in_tree_order`: the strengths come in tree order (tree.src_index is the identity), read as
  /// they are until the passes end (the distributed solver fills its ghost sources' meanwhile).
  FarField(const Tree& tree, const Plan& plan, int p, const FarShape& shape,
           bool in_tree_order = false);

  /// The strengths (caller order, nd x n_sources each) gathered into tree order, the outputs
  /// zeroed and the expansions reset: what the passes below read and write.
  void start(const Strengths& s, int team);
  /// P2M at the leaves, M2M level by level up to level 3.
  void upward_pass(int team, Timings* t);
  /// M2L (every level), P2L, L2L level by level, L2P, M2P.
  void downward_pass(int team, Timings* t);
  /// The far field added to caller-order outputs (nd x n_targets each).
  void add_to(const Outputs& out, int team) const;

  const Operators& operators() const { return ops_; }
  /// The expansions (the distributed solver adds remote boxes' multipoles between the passes).
  Expansions& expansions() { return exp_; }

 private:
  const Tree& tree_;
  const Plan& plan_;
  FarShape shape_;
  bool in_tree_order_;
  Operators ops_;
  Expansions exp_;
  FarSources src_;
  FarOutputs out_;
  Array<double> q_tree_, mx_tree_, my_tree_;                     // nd x sources, tree order
  Array<double> far_phi_, far_ex_, far_ey_, far_hxx_, far_hxy_;  // nd x targets, tree order
};

}  // namespace mlfma2d
