#pragma once
/// \file distributed.hpp
/// The evaluation distributed over MPI ranks (docs/distributed.md). Installed only by a build
/// with MPI (CMake option MLFMA2D_WITH_MPI); the library's package then asks its consumers for
/// MPI (find_dependency(MPI)).
///
/// Each rank passes its part of the sources and targets (any part: the points need not be
/// sorted or near one another, and a rank may pass none) and the same Options; the ranks
/// together build one tree, cut into contiguous Morton ranges of equal predicted cost, each rank
/// evaluating its range: its near field through its back end (a GPU back end on the GPU its
/// node-local rank picks), its far field on its cores, the multipoles of remote boxes and the
/// strengths of remote sources exchanged every evaluation. Each rank gets the potential (and
/// field, Hessian) at the targets it passed, in its order. The result equals the one-process
/// Solver's to within eps.
///
/// Construction and every evaluation are collective over the communicator: every rank calls
/// them, in the same order. MPI is called from the calling thread only (MPI_THREAD_FUNNELED
/// suffices); MPI must be initialised before and finalised after the solver's lifetime. An
/// error on any rank is thrown on every rank ("rank R: ..."), so no rank is left waiting.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mlfma2d/fields.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d {

/// \brief One rank's figures: its part of the geometry (fixed at construction) and its last
/// evaluation's times and traffic (bytes to and from other ranks).
struct DistributedFigures {
  int rank = 0, ranks = 1;
  int node_rank = 0;  ///< rank among the ranks of its node
  int device = -1;    ///< the GPU its near field runs on; -1 for a CPU back end
  std::size_t caller_sources = 0, caller_targets = 0;  ///< the points this rank passed in
  std::size_t sources = 0, targets = 0;                ///< the points it owns after the partition
  std::size_t ghost_sources = 0;                       ///< remote sources its near and X lists read
  std::size_t leaves = 0;                              ///< leaves it owns
  std::size_t let_boxes = 0;                           ///< boxes of its locally essential tree
  std::size_t multipoles_in = 0;   ///< partial multipoles it receives per evaluation
  std::size_t multipoles_out = 0;  ///< partial multipoles it sends per evaluation
  double predicted = 0;            ///< its leaves' predicted seconds (the partition's model)
  double setup = 0;                ///< construction, seconds
  std::uint64_t setup_sent = 0, setup_received = 0;  ///< construction's bytes
  double evaluation = 0;                             ///< the last evaluation, seconds
  double communication = 0;                          ///< of which in MPI calls (waiting included)
  double work = 0;                                   ///< evaluation less communication
  double redistribute = 0;                ///< strengths to their owners and results back (in MPI)
  double ghost_wait = 0;                  ///< waiting for the ghost sources' strengths
  double multipole_wait = 0;              ///< waiting for the remote multipoles
  std::uint64_t sent = 0, received = 0;   ///< the last evaluation's bytes, all exchanges
  std::uint64_t ghost_sent = 0;           ///< of sent: ghost strengths
  std::uint64_t multipole_sent = 0;       ///< of sent: partial multipoles
  std::uint64_t redistribution_sent = 0;  ///< of sent: strengths to owners, results back
};

/// \brief The points a rank owns after the partition, in the order
/// DistributedSolver::evaluate_owned takes their strengths (sources) and gives their results
/// (targets): their coordinates and where each came from.
struct DistributedPoints {
  std::vector<double> x, y;
  std::vector<int> rank;            ///< the rank that passed the point
  std::vector<std::int64_t> index;  ///< its index among that rank's points
};

/// \brief The fast multipole evaluation over the ranks of an MPI communicator.
class DistributedSolver {
 public:
  /// Self-evaluation: this rank's sources (x, y) are also its targets.
  DistributedSolver(MPI_Comm comm, const std::vector<double>& x, const std::vector<double>& y,
                    const Options& options = {});
  /// Separate targets: this rank's sources (x, y) and targets (tx, ty); either may be empty on a
  /// rank (not on every rank). Every rank calls the same constructor.
  DistributedSolver(MPI_Comm comm, const std::vector<double>& x, const std::vector<double>& y,
                    const std::vector<double>& tx, const std::vector<double>& ty,
                    const Options& options = {});
  ~DistributedSolver();
  DistributedSolver(DistributedSolver&&) noexcept;
  DistributedSolver& operator=(DistributedSolver&&) noexcept;

  /// Charges q of this rank's sources (nd x n, its order); the result at its targets.
  Result evaluate(const std::vector<double>& q);
  /// Charges and/or dipoles of nd densities (this rank's sources); the result at its targets.
  Result evaluate(const Densities& sources);
  /// The same into caller arrays of nd x (this rank's targets) each.
  void evaluate(const Densities& sources, const Outputs& outputs);
  /// The evaluation in the owned order: the strengths of this rank's own sources (nd x
  /// owned_sources(), their order), the outputs at its own targets (nd x owned_targets()).
  /// Without the two exchanges that move the strengths to their owners and the results back,
  /// whose bytes follow the points (docs/distributed.md): what a method that iterates over the
  /// ranks calls.
  void evaluate_owned(const Densities& sources, const Outputs& outputs);
  /// This rank's own sources and targets (the sources again in self-evaluation), in the owned
  /// order. Collective: every rank learns where its own points came from.
  DistributedPoints owned_sources() const;
  DistributedPoints owned_targets() const;

  const Options& options() const;
  /// The global tree's figures; the work figures (near pairs, M2L pairs, W and X terms, flops)
  /// are the sums of every rank's (a box shared by several ranks counts on each).
  const TreeStats& stats() const;
  /// This rank's last evaluation by phase (tree, plan, setup: its construction's).
  const Timings& timings() const;
  /// This rank's figures.
  const DistributedFigures& figures() const;
  /// Every rank's figures, on `root` (empty on the others). Collective.
  std::vector<DistributedFigures> gather_figures(int root = 0) const;
  const std::vector<std::string>& warnings() const;
  /// What was chosen automatically (back end, CT) and why; the same on every rank.
  const AutoChoice& auto_choice() const;

 private:
  struct Impl;
  Impl& impl() const;  ///< throws InvalidInput on a moved-from solver
  std::unique_ptr<Impl> impl_;
};

/// \brief The ranks' imbalance: the largest work (evaluation less communication) over the mean.
double work_imbalance(const std::vector<DistributedFigures>& ranks);

template <>
struct FieldTable<DistributedFigures> {
  template <class F>
  static constexpr void visit(F&& f) {  // NOLINT(readability-function-size): a table
    using S = DistributedFigures;
    f(field("rank", &S::rank, "", "this rank"));
    f(field("ranks", &S::ranks, "", "ranks of the communicator"));
    f(field("node_rank", &S::node_rank, "", "rank among the ranks of its node"));
    f(field("device", &S::device, "", "its GPU, -1: a CPU back end"));
    f(field("caller_sources", &S::caller_sources, "", "sources it passed in"));
    f(field("caller_targets", &S::caller_targets, "", "targets it passed in"));
    f(field("sources", &S::sources, "", "sources it owns after the partition"));
    f(field("targets", &S::targets, "", "targets it owns after the partition"));
    f(field("ghost_sources", &S::ghost_sources, "", "remote sources its lists read"));
    f(field("leaves", &S::leaves, "", "leaves it owns"));
    f(field("let_boxes", &S::let_boxes, "", "boxes of its locally essential tree"));
    f(field("multipoles_in", &S::multipoles_in, "", "partial multipoles received per evaluation"));
    f(field("multipoles_out", &S::multipoles_out, "", "partial multipoles sent per evaluation"));
    f(field("predicted", &S::predicted, "s", "its leaves' predicted time"));
    f(field("setup", &S::setup, "s", "construction"));
    f(field("setup_sent", &S::setup_sent, "B", "construction: bytes sent"));
    f(field("setup_received", &S::setup_received, "B", "construction: bytes received"));
    f(field("evaluation", &S::evaluation, "s", "the last evaluation"));
    f(field("communication", &S::communication, "s", "of which in MPI calls"));
    f(field("work", &S::work, "s", "evaluation less communication"));
    f(field("redistribute", &S::redistribute, "s", "strengths to owners, results back"));
    f(field("ghost_wait", &S::ghost_wait, "s", "waiting for ghost strengths"));
    f(field("multipole_wait", &S::multipole_wait, "s", "waiting for remote multipoles"));
    f(field("sent", &S::sent, "B", "bytes sent by the last evaluation"));
    f(field("received", &S::received, "B", "bytes received by the last evaluation"));
    f(field("ghost_sent", &S::ghost_sent, "B", "of sent: ghost strengths"));
    f(field("multipole_sent", &S::multipole_sent, "B", "of sent: partial multipoles"));
    f(field("redistribution_sent", &S::redistribution_sent, "B",
            "of sent: strengths to owners, results back"));
  }
};

}  // namespace mlfma2d
