#pragma once
// Helpers of the MPI tests (tests/test_mpi_*.cpp, run under mpirun -np 1..4): a gtest main on
// every rank whose failures fail the run, each rank's part of a global point set, global error
// norms, and the one-process reference.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mlfma2d/distributed.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::testing {

int mpi_rank();
int mpi_size();

/// Runs every test on every rank (MPI initialised around them; rank 0 prints gtest's report,
/// the others their failures, prefixed with their rank) and returns 1 on every rank when any
/// rank failed: mpirun then fails.
int mpi_test_main(int argc, char** argv);

/// \brief A rank's part of a global point set: its points' global indices, in the order passed.
struct Part {
  std::vector<std::size_t> index;
  std::vector<double> x, y;
};
/// The points of (x, y) this rank passes: a scattered choice (point i to rank (i * 7919 + salt)
/// % ranks), so that every rank passes points from everywhere and the solver must move them;
/// `none` (if >= 0): that rank passes none.
Part take_part(const std::vector<double>& x, const std::vector<double>& y, int salt, int none = -1);
/// The global index of each point every rank passes (take_part's choice): parts[r][j] is rank
/// r's point j.
std::vector<std::vector<std::size_t>> all_parts(std::size_t n, int salt, int none = -1);
/// Rows of nd x n values (global) restricted to the part: nd x part.
std::vector<double> part_rows(const std::vector<double>& v, int nd, std::size_t n,
                              const Part& part);

/// Relative L2 error over every rank: sqrt(sum (value - reference)^2 / sum reference^2).
double global_rel_l2(const std::vector<double>& value, const std::vector<double>& reference);

/// Every output of `r` against `ref` (restricted to this part: ref holds nd x n global values),
/// each checked to `tolerance` (relative L2 over every rank, per density).
void expect_outputs_near(const Result& r, const Result& ref, int nd, std::size_t n,
                         const Part& part, double tolerance, const std::string& what);

}  // namespace mlfma2d::testing
