#pragma once
// One evaluation's strengths and outputs on their way through the method (issue 22): checked,
// summed over merged sources, dipoles made moments (solver/points.hpp: Strengths), put in tree
// order for the far field, and the outputs finished (back from scaled coordinates, d2phi/dy2).
#include <cstddef>
#include <vector>

#include "farfield/expansions.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/array.hpp"
#include "runtime/permutation.hpp"
#include "solver/points.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// What one evaluation carries (kernel/arrays.hpp): its densities and kinds of sources.
using SourceKinds = EvaluationShape;

/// Throws InvalidInput when an array the kinds need is missing or a value is not finite (naming
/// it: "charge 7 of density 2", "dipole orientation y of source 3"); n sources.
void check_strengths(const SourceKinds& kinds, std::size_t n, const Densities& in,
                     const char* who = "");
/// Throws InvalidInput when an output the options ask for is missing.
void check_outputs(bool field, bool hessian, const Outputs& out, const char* who = "");

/// \brief The arrays of one evaluation, kept from one to the next (no allocation per call).
class EvaluationArrays {
 public:
  /// The strengths as the tree's sources carry them, in the caller's order of the tree's
  /// sources (merged sources summed, moments d v / S). The moments go to mx_to and my_to (nd x
  /// sources each: a device back end's staging buffers, NearFieldBackend::staging_buffers) where
  /// given and no sources are merged, else to arrays of its own.
  Strengths caller_order(const PreparedPoints& points, const SourceKinds& kinds,
                         const Densities& in, int threads, double* mx_to = nullptr,
                         double* my_to = nullptr);
  /// The same in tree order, for the far field.
  FarSources tree_order(const Tree& tree, const Strengths& s, int nd, int threads);
  /// The far field's tree-order outputs: those of targets in leaves above level 3 zeroed, the
  /// rest left for L2P, which sets them.
  FarOutputs far_outputs(const Tree& tree, int nd, bool field, bool hessian, int threads);
  /// The permutations between the caller's order and the tree's (Tree::tgt_index, and with
  /// `sources` Tree::src_index for tree_order), once per tree, in two cache-friendly passes each
  /// (runtime/permutation.hpp); without them (or beyond 2^32 points) the permutations below
  /// move elements one by one.
  void index_points(const Tree& tree, bool sources, int threads);
  /// The far field's outputs put in caller order, in arrays of their own: the permutation done
  /// while a device's near field still runs (the far field's threads are free then), so that
  /// add_far_field is a stream. Tree-order targets are a permutation of the caller's, so every
  /// element is written once.
  void stage_far_field(const Tree& tree, int nd, bool field, bool hessian, int threads);
  /// The far field's outputs added to the caller-order outputs (nd x targets): the staged ones
  /// element by element where stage_far_field ran for this evaluation, else through the
  /// permutation. `near` (null: the near field's results are in `out` already): the near
  /// field's caller-order results (phi, ex, ey, hxx, hxy) where a staged evaluation left them
  /// (NearFieldBackend::stage_in); out = near + far in one pass then. Each output is near + far
  /// (one addition) every way: the same bits.
  void add_far_field(const Tree& tree, int nd, bool field, bool hessian, const Outputs& out,
                     const double* const* near, int threads) const;

 private:
  /// o = f (with `plus`: o = plus + f; plus may be o) from tree order to caller order, nd rows
  /// of the targets.
  void to_caller_order(const Tree& tree, int nd, const double* f, double* o, const double* plus,
                       int threads) const;

  std::vector<double> mom_x_, mom_y_, q_merged_, mx_merged_, my_merged_;
  Array<double> q_, mx_, my_;                // nd x sources, tree order
  Array<double> phi_, ex_, ey_, hxx_, hxy_;  // nd x targets, tree order
  Array<double> staged_[5];                  // the same in caller order (stage_far_field)
  bool staged_now_ = false;                  // stage_far_field ran for this evaluation
  BlockedPermutation targets_, sources_;     // tree -> caller order (index_points)
};

/// The outputs finished: back from scaled coordinates (+ log S per paired charge, derivatives
/// / S per order: solver/points.hpp), and d2phi/dy2 = -d2phi/dx2.
void finish_outputs(const PreparedPoints& points, const Strengths& s, int nd, bool field,
                    bool hessian, const Outputs& out, int threads);

}  // namespace mlfma2d
