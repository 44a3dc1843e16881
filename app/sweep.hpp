#pragma once
/// \file sweep.hpp
/// `mlfma2d sweep NAME`: the papers' near-field experiments -- measurement (through the tuning
/// module's timing harness), CSV, metadata, model fit and plots.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli.hpp"

namespace mlfma2d::app {

/// \brief `mlfma2d sweep NAME ...`: re-run one of the papers' experiments.
struct SweepArgs {
  std::string name;  ///< collection, kernel or levels
  bool quick = false;
  int repeat = 0;                     ///< timed evaluations per run; 0 = 20 (3 with --quick)
  int warmup = 1;                     ///< untimed evaluations before them
  std::vector<std::string> backends;  ///< empty = every known back end
  std::string output_dir;             ///< empty = sweep-NAME[-quick]
  std::vector<std::size_t> sizes;     ///< --sizes: replace the sweep's N list
  std::vector<int> grid_levels;       ///< --grid-levels: replace the levels sweep's L list
  std::vector<int> offsets;           ///< --offsets: replace the levels sweep's i list
  int ct = 15;
  int fixed_levels = 0;  ///< kernel sweep's fixed L; 0 = from the largest N
  int threads = 0;
  std::string shape = "uniform";
  std::uint64_t seed = 1;
  bool quiet = false;
  bool no_plots = false;
  std::string command_line;  ///< for the run's metadata
};

/// The sweep command (its row in command_rows()): a progress bar on stderr, the CSV, metadata
/// JSON, model fit and plots in the output folder, a summary on stdout.
CommandRow sweep_command();

/// The sweeps `mlfma2d sweep` knows: collection, kernel, levels.
std::vector<std::string> sweep_names();

/// Runs sweep `a` (app/sweep_run.cpp): the CSV grows row by row in NAME.csv.partial, which a
/// failing or killed run leaves with the rows it measured, and becomes NAME.csv when every
/// configuration is done; then the model, plots and metadata beside it, the summary on `out`,
/// progress and notes on `err`. Returns the exit code (0).
int run_sweep(const SweepArgs& a, std::ostream& out, std::ostream& err);

}  // namespace mlfma2d::app
