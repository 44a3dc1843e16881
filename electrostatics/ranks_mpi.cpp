// The solve over the ranks of an MPI communicator (electrostatics/ranks.hpp; a build with MPI):
// sums and gathers over the ranks, agreed errors, and the FMM through the DistributedSolver.
#include <mpi.h>

#include <climits>

#include "electrostatics/ranks.hpp"
#include "mlfma2d/distributed.hpp"

namespace mlfma2d {

namespace {

class MpiRanks : public SolveRanks {
 public:
  explicit MpiRanks(MPI_Comm caller) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) throw InvalidInput("the solve over ranks needs MPI initialised");
    // Its own communicator: its messages never meet the caller's.
    MPI_Comm_dup(caller, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiRanks() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised) MPI_Comm_free(&comm_);
  }
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sum(double* v, std::size_t n) const override {
    if (n > std::size_t(INT_MAX))
      throw InvalidInput("the solve over ranks: too many values to sum");
    MPI_Allreduce(MPI_IN_PLACE, v, int(n), MPI_DOUBLE, MPI_SUM, comm_);
  }
  std::vector<double> gather(const double* mine, std::size_t n) const override {
    const std::size_t ranks = static_cast<std::size_t>(size_);
    std::vector<long long> counts(ranks);
    long long m = static_cast<long long>(n);
    MPI_Allgather(&m, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, comm_);
    std::vector<int> c(ranks), at(ranks);
    long long total = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      if (total + counts[r] > INT_MAX) {
        throw InvalidInput("the solve over ranks: more than 2^31 values to gather");
      }
      c[r] = int(counts[r]);
      at[r] = int(total);
      total += counts[r];
    }
    std::vector<double> all(static_cast<std::size_t>(total));
    MPI_Allgatherv(mine, int(n), MPI_DOUBLE, all.data(), c.data(), at.data(), MPI_DOUBLE, comm_);
    return all;
  }
  void agree(std::exception_ptr error) const override { agree_on_errors(comm_, error); }
  std::unique_ptr<es::FieldSum> field_sum(const std::vector<double>& sx,
                                          const std::vector<double>& sy,
                                          const std::vector<double>& tx,
                                          const std::vector<double>& ty,
                                          const Options& options) const override {
    return std::make_unique<es::SolverSum<DistributedSolver>>(
        DistributedSolver(comm_, sx, sy, tx, ty, options));
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
};

}  // namespace

std::shared_ptr<const SolveRanks> solve_ranks(MPI_Comm comm) {
  return std::make_shared<MpiRanks>(comm);
}

}  // namespace mlfma2d
