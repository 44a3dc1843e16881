#pragma once
/// \file compare.hpp
/// `mlfma2d compare`: every near-field back end on one geometry -- verified against direct
/// summation (computed once) and against the reference back end, timed phase by phase,
/// tabulated with the speedups over the reference and over the papers' baseline.
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/evaluate.hpp"

namespace mlfma2d::app {

/// \brief `mlfma2d compare ...`: the evaluate options (output = the table file, .csv or .h5),
/// every back end on one geometry.
struct CompareArgs {
  EvaluateArgs common;
  std::vector<std::string> backends;  ///< --backends; empty = every known back end
};

/// The compare command (its row in command_rows()): the report on stdout, notes and progress on
/// stderr; exit 4 (after the report) when a back end disagrees with the reference by more than
/// 1e-12 in relative L2.
CommandRow compare_command();

}  // namespace mlfma2d::app
