#pragma once
// What the subcommands of mlfma2d_bench_solve share (bench/solve.cpp): the command line, the
// JSON file of the rows; and the subcommand of bench/solve_batched.cpp.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlfma2d::bench_solve {

/// \brief --backend and --json of the line subcommands; --traces, --panels, --repeats, --threads
/// of batched.
struct Args {
  std::string backend = "auto";
  std::string json_path;
  int threads = 0;  ///< the FMM's (and the solve's) OpenMP threads; 0: the OpenMP default
  std::vector<int> traces = {4, 8};
  std::vector<std::size_t> panels = {10000, 40000};
  int repeats = 2;
};

/// The rows so far, written (atomically) after every row so that an interrupted run keeps them.
void save(const Args& a, const nlohmann::json& j);

/// NaN-safe JSON number.
nlohmann::json number(double v);

/// The capacitance matrix of a bus of K traces on a substrate over the ground plane, solved as
/// one block (ElectrostaticOptions::batched) against K solves one after the other.
void batched(const Args& a);

}  // namespace mlfma2d::bench_solve
