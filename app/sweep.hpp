#pragma once
/// \file sweep.hpp
/// The papers' near-field experiments (`mlfma2d sweep NAME`) and the model fit over their data
/// (`mlfma2d model fit`): measurement, CSV, metadata and gnuplot plots. The model itself is in
/// app/model.hpp.
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli.hpp"

namespace mlfma2d::app {

/// The sweeps `mlfma2d sweep` knows: collection, kernel, levels.
std::vector<std::string> sweep_names();

/// \brief One configuration of a sweep.
struct SweepPoint {
  std::size_t n = 0;     ///< points (uniform, targets = sources)
  int level_offset = 0;  ///< i, applied after CT fixed L (levels sweep)
  int grid_levels = 0;   ///< levels sweep: the L of N = 4^(L-1); else 0
};

/// The configurations of a sweep, in run order (the papers' lists, or --quick's, or --sizes /
/// --grid-levels / --offsets). Throws InvalidInput for an unknown name.
std::vector<SweepPoint> sweep_points(const SweepArgs& args);

/// Timed evaluations per run: --repeat, else 20 (the papers') or 3 with --quick.
int sweep_repeats(const SweepArgs& args);

/// Runs a sweep: a progress bar on stderr, the CSV, metadata JSON and plots in the output folder,
/// a summary on `out`.
int run_sweep(const SweepArgs& args, std::ostream& out, std::ostream& err);

/// Fits the model to sweep CSVs: the fit report (or JSON) on `out`, coefficients to --output,
/// plots to --plot-dir.
int run_model_fit(const ModelFitArgs& args, std::ostream& out, std::ostream& err);

/// The sweep --help section: the experiments, the CSV columns, the files written.
std::string sweep_help_text();
/// The model --help section: what is fitted, how, and the coefficients file.
std::string model_help_text();

}  // namespace mlfma2d::app
