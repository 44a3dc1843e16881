#pragma once
// The processes a solve runs over (docs/distributed.md, "The solve over ranks"): this process
// alone (the default, and the dense method always), or the ranks of an MPI communicator
// (solve_ranks(MPI_Comm), mlfma2d/distributed.hpp; electrostatics/ranks_mpi.cpp in a build with
// MPI). The system's unknowns (every panel, then the border: the constant c) are cut into
// contiguous ranges, one per rank; each rank applies the operator's rows of its range, the
// preconditioner's blocks over it, and sums over the ranks what GMRES reduces. What a solve
// needs of the other ranks is this class: the one-process answers here, MPI's in the subclass.
#include <cstddef>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/io.hpp"

namespace mlfma2d {

namespace es {

/// \brief The FMM of one operator: every rank's sources, at this rank's targets.
class FieldSum {
 public:
  virtual ~FieldSum() = default;
  /// phi (and ex, ey unless null) at this rank's targets of the charges q of this rank's sources.
  virtual void evaluate(const double* q, double* phi, double* ex, double* ey) = 0;
  virtual const TreeStats& stats() const = 0;
  virtual const AutoChoice& auto_choice() const = 0;
};

/// The FieldSum of a solver: S is the Solver (one process) or the DistributedSolver (the ranks).
template <class S>
class SolverSum final : public FieldSum {
 public:
  explicit SolverSum(S s) : solver_(std::move(s)) {}
  void evaluate(const double* q, double* phi, double* ex, double* ey) override {
    solver_.evaluate(Densities{q}, Outputs{phi, ex, ey});
  }
  const TreeStats& stats() const override { return solver_.stats(); }
  const AutoChoice& auto_choice() const override { return solver_.auto_choice(); }

 private:
  S solver_;
};

}  // namespace es

/// \brief This process alone; the MPI ranks override every function (ranks_mpi.cpp).
class SolveRanks {
 public:
  virtual ~SolveRanks() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  /// v[0..n) summed over the ranks, in place, the same on every rank.
  virtual void sum(double* v, std::size_t n) const;
  /// Every rank's `mine` (n of them), concatenated in rank order, on every rank.
  virtual std::vector<double> gather(const double* mine, std::size_t n) const;
  /// Throws on every rank when any rank's error is set (mlfma2d::agree_on_errors).
  virtual void agree(std::exception_ptr error) const;
  /// The FMM of this rank's sources (sx, sy) at its targets (tx, ty): the Solver, or the
  /// DistributedSolver over the ranks.
  virtual std::unique_ptr<es::FieldSum> field_sum(const std::vector<double>& sx,
                                                  const std::vector<double>& sy,
                                                  const std::vector<double>& tx,
                                                  const std::vector<double>& ty,
                                                  const Options& options) const;
  /// This rank's part of n entries (mlfma2d::rank_part).
  PointRange share(std::size_t n) const { return rank_part(n, rank(), size()); }
};

namespace es {

/// This process alone.
const std::shared_ptr<const SolveRanks>& one_process();

/// Runs f, then agrees on its error over `ranks` (a throw on any rank throws on every rank).
template <class F>
void collectively(const SolveRanks& ranks, F&& f) {
  std::exception_ptr error;
  try {
    f();
  } catch (...) {
    error = std::current_exception();
  }
  ranks.agree(error);
}

}  // namespace es
}  // namespace mlfma2d
