// The program's start and end under mpirun (app/ranks.hpp), in a build with MPI.
#include <mpi.h>

#include <chrono>
#include <string>
#include <thread>

#include "app/ranks.hpp"
#include "mlfma2d/distributed.hpp"

namespace mlfma2d::app {

Ranks& ranks_found();  // app/ranks.cpp

namespace {

// A rank that failed alone waits this long for the others at the end before it ends the run:
// they are in a collective it never reached (an error it could not share).
constexpr double kGraceSeconds = 60;

// Every rank arrives at the end, or this rank (when it failed) gives up after the grace period.
bool all_arrived(bool failed) {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return true;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (failed && waited > kGraceSeconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

Ranks start_ranks(int* argc, char*** argv) {
  if (launched_processes() <= 1) return ranks_found();
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  Ranks& r = ranks_found();
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r.size);
  return r;
}

void on_every_rank(const std::function<void()>& f) {
  if (!program_ranks().many()) return f();
  collectively(MPI_COMM_WORLD, f);
}

void on_rank_zero(const std::function<void()>& f) {
  if (!program_ranks().many()) return f();
  collectively(MPI_COMM_WORLD, [&] {
    if (program_ranks().rank == 0) f();
  });
}

std::unique_ptr<ElectrostaticSolver> make_electrostatic_solver(
    const Contours& contours, const ElectrostaticOptions& options) {
  if (!program_ranks().many()) return std::make_unique<ElectrostaticSolver>(contours, options);
  return std::make_unique<ElectrostaticSolver>(contours, options, solve_ranks(MPI_COMM_WORLD));
}

int finish_ranks(int code, const std::string& message, void (*print)(const std::string&)) {
  const Ranks& r = program_ranks();
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    if (!message.empty()) print(message);
    return code;
  }
  if (!all_arrived(code != 0)) {
    print("rank " + std::to_string(r.rank) + ": " + message);
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  // The lowest failing rank's outcome, to every rank.
  int first = code != 0 ? r.rank : r.size;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == r.size) {
    MPI_Finalize();
    return 0;
  }
  int head[2] = {code, int(message.size())};
  MPI_Bcast(head, 2, MPI_INT, first, MPI_COMM_WORLD);
  std::string text = message;
  text.resize(std::size_t(head[1]));
  MPI_Bcast(text.data(), head[1], MPI_CHAR, first, MPI_COMM_WORLD);
  // An error every rank shares (agreed, or the same on each) is said as it is; one of some ranks
  // only names the rank.
  int same = code == head[0] && message == text ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!same) text = "rank " + std::to_string(first) + ": " + text;
  if (r.rank == 0) print(text);
  MPI_Finalize();
  return head[0];
}

}  // namespace mlfma2d::app
