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
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "mlfma2d/distributed_figures.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d {

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

class SolveRanks;  // mlfma2d/electrostatics.hpp

/// \brief The ranks of `comm` for the electrostatic solve over them (collective):
/// ElectrostaticSolver(contours, options, solve_ranks(comm)) (mlfma2d/electrostatics.hpp) on
/// every rank, with the same contours and options. The communicator is duplicated.
std::shared_ptr<const SolveRanks> solve_ranks(MPI_Comm comm);

/// \brief Agrees on errors over `comm` (collective: every rank calls it at the same point).
/// When any rank's `error` is set, throws on every rank the error of the lowest such rank, of its
/// type (InvalidInput, IoError, BackendUnavailable, CudaError, RuntimeFailure; any other as
/// RuntimeFailure), its message prefixed with "rank R: " when the communicator has more than one
/// rank; returns when none is set. What DistributedSolver does with its own errors, for a
/// program's local steps between collectives (reading its part of a file...), so that no rank is
/// left waiting in a collective the failing rank never reaches.
void agree_on_errors(MPI_Comm comm, std::exception_ptr error);

/// Runs f, then agree_on_errors(comm, what f threw): a throw on any rank throws on every rank.
template <class F>
void collectively(MPI_Comm comm, F&& f) {
  std::exception_ptr error;
  try {
    f();
  } catch (...) {
    error = std::current_exception();
  }
  agree_on_errors(comm, error);
}

}  // namespace mlfma2d
