#pragma once
/// \file sweep.hpp
/// `mlfma2d sweep NAME`: the papers' near-field experiments -- measurement (through the tuning
/// module's timing harness), CSV, metadata, model fit and plots.
#include <cstddef>
#include <cstdint>
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

}  // namespace mlfma2d::app
