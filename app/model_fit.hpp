#pragma once
/// \file model_fit.hpp
/// `mlfma2d model fit CSV... --output FILE`: fit the papers' performance model (tuning/model.hpp)
/// to sweep data, report it, write the coefficients for `--backend auto --model FILE`.
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/options.hpp"

namespace mlfma2d::app {

/// \brief `mlfma2d model fit CSV... --output FILE`
struct ModelFitArgs {
  std::vector<std::string> csv;
  std::string output;    ///< coefficients (JSON); empty = print only
  std::string plot_dir;  ///< predicted-vs-measured plots; empty = none
  ReportFormat report = ReportFormat::Text;
  bool quiet = false;
};

/// The model fit command (its row in command_rows()): the fit report (or JSON) on stdout, the
/// coefficients to --output, plots to --plot-dir.
CommandRow model_fit_command();

}  // namespace mlfma2d::app
