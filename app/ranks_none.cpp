// The program without MPI (app/ranks.hpp): always one process; launched as several it refuses,
// since each would do the whole work and write the same output.
#include <string>

#include "app/ranks.hpp"
#include "mlfma2d/errors.hpp"

namespace mlfma2d::app {

Ranks start_ranks(int*, char***) {
  const int n = launched_processes();
  if (n > 1) {
    throw InvalidInput("started as one of " + std::to_string(n) +
                       " processes (mpirun), but this mlfma2d was built without MPI: each would "
                       "do the whole run; rebuild with MPI (CMake MLFMA2D_WITH_MPI) or run one "
                       "process");
  }
  return program_ranks();
}

int finish_ranks(int code, const std::string& message, void (*print)(const std::string&)) {
  if (!message.empty()) print(message);
  return code;
}

void on_every_rank(const std::function<void()>& f) {
  f();
}

void on_rank_zero(const std::function<void()>& f) {
  f();
}

std::unique_ptr<ElectrostaticSolver> make_electrostatic_solver(
    const Contours& contours, const ElectrostaticOptions& options) {
  return std::make_unique<ElectrostaticSolver>(contours, options);
}

int run_evaluate_ranks(const EvaluateArgs&, std::ostream&, std::ostream&) {
  throw InvalidInput("this mlfma2d was built without MPI: it runs as one process");
}

}  // namespace mlfma2d::app
