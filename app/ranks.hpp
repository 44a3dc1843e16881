#pragma once
/// \file ranks.hpp
/// The program under mpirun (docs/distributed.md, "The program under mpirun"). In a build with
/// MPI, a program started by mpirun (or another MPI launcher) as one of several processes is one
/// rank of the run: `evaluate` and `solve` then work over the ranks (app/evaluate_ranks.cpp;
/// app/solve.cpp through the functions below), every other command refuses. Started as one process
/// (mpirun -np 1 included) it is the one-process program, MPI untouched. This header needs no MPI:
/// a build without it has the one-process answers (app/ranks_none.cpp), and refuses to run as
/// several processes, each of which would do the whole work.
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d::app {

struct EvaluateArgs;
struct SolveArgs;

/// \brief This process's place among the ranks of the run.
struct Ranks {
  int rank = 0, size = 1;
  bool many() const { return size > 1; }
};

/// The number of processes the launcher started, from its environment (OMPI_COMM_WORLD_SIZE of
/// Open MPI, PMI_SIZE of MPICH, Intel MPI and Slurm's PMI); 1 when none says.
int launched_processes();

/// Starts MPI (MPI_Init_thread, MPI_THREAD_FUNNELED) when launched_processes() > 1, and returns
/// this process's rank; otherwise returns {0, 1} and leaves MPI alone. A build without MPI throws
/// InvalidInput when launched as several processes.
Ranks start_ranks(int* argc, char*** argv);

/// The ranks start_ranks found ({0, 1} before it or without MPI).
const Ranks& program_ranks();

/// Ends the run on every rank: `code` and `message` (empty: none) are this rank's outcome. Every
/// rank returns the same exit code and rank 0 alone prints the error line (print(message)): the
/// lowest failing rank's, as every rank learnt it. A rank whose error the others could not learn
/// of (they wait in a collective it never reaches) prints its own and ends the whole run
/// (MPI_Abort) with its code after a minute. MPI is finalised. One process: prints the message if
/// any and returns `code`.
int finish_ranks(int code, const std::string& message, void (*print)(const std::string&));

/// A stream that drops what is written to it, for the report and notes of ranks other than 0.
std::ostream& null_stream();

/// Runs f on every rank, then agrees on its errors: a throw on any rank throws on every rank
/// (mlfma2d::collectively over MPI_COMM_WORLD); one process: f.
void on_every_rank(const std::function<void()>& f);
/// Runs f on rank 0 alone (a file written once), its error every rank's.
void on_rank_zero(const std::function<void()>& f);

/// The electrostatic solver over the program's ranks (solve_ranks(MPI_COMM_WORLD)), or of this
/// process alone.
std::unique_ptr<ElectrostaticSolver> make_electrostatic_solver(const Contours& contours,
                                                               const ElectrostaticOptions& options);

/// `mlfma2d evaluate` over the ranks: each rank reads its part of the input, the
/// DistributedSolver evaluates, rank 0 writes the output and prints the report.
int run_evaluate_ranks(const EvaluateArgs& args, std::ostream& out, std::ostream& err);

}  // namespace mlfma2d::app
