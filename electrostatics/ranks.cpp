// The one-process answers of SolveRanks (electrostatics/ranks.hpp): the FMM through the Solver.
#include "electrostatics/ranks.hpp"

namespace mlfma2d {

void SolveRanks::sum(double*, std::size_t) const {}

std::vector<double> SolveRanks::gather(const double* mine, std::size_t n) const {
  return std::vector<double>(mine, mine + n);
}

void SolveRanks::agree(std::exception_ptr error) const {
  if (error) std::rethrow_exception(error);
}

std::unique_ptr<es::FieldSum> SolveRanks::field_sum(const std::vector<double>& sx,
                                                    const std::vector<double>& sy,
                                                    const std::vector<double>& tx,
                                                    const std::vector<double>& ty,
                                                    const Options& options) const {
  return std::make_unique<es::SolverSum<Solver>>(Solver(sx, sy, tx, ty, options));
}

namespace es {

const std::shared_ptr<const SolveRanks>& one_process() {
  static const std::shared_ptr<const SolveRanks> one = std::make_shared<SolveRanks>();
  return one;
}

}  // namespace es
}  // namespace mlfma2d
