#pragma once
// The far field of one geometry as both solvers run it (the one-process Solver, and each rank of
// the distributed solver between its exchanges): the operators and the expansions, built once;
// per evaluation the upward pass (P2M, M2M) and the interaction lists with the downward pass
// (M2L, P2L, L2L, L2P, M2P), one timed scope per operator in the method's order (docs/math.md
// sections 3 and 4). The strengths and outputs in tree order are the caller's
// (solver/strengths.hpp: EvaluationArrays).
#include <vector>

#include "farfield/expansions.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// \brief The far field's operators and expansions for one tree and plan.
class FarField {
 public:
  FarField(const Tree& tree, const Plan& plan, int p);

  /// The expansions sized for nd densities (zeroed when allocated; the passes zero what they
  /// write, Expansions says how).
  void reset(int densities, int team);
  /// P2M at the leaves, M2M level by level up to level 3; the multipoles neither writes (boxes
  /// without children that P2M does not visit: no sources, or, in a distributed evaluation,
  /// another rank's) zeroed first.
  void upward_pass(const FarSources& src, int team, Timings* t);
  /// M2L (every level), P2L, L2L level by level, L2P, M2P, added to `out`.
  void downward_pass(const FarSources& src, const FarOutputs& out, int team, Timings* t);

  const Operators& operators() const { return ops_; }
  /// The expansions (the distributed solver adds remote boxes' multipoles between the passes).
  Expansions& expansions() { return exp_; }

 private:
  const Tree& tree_;
  const Plan& plan_;
  Operators ops_;
  Expansions exp_;
  std::vector<BoxRef> unwritten_;  // boxes without children on levels >= 3 that P2M skips
};

}  // namespace mlfma2d
