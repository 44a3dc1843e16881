#pragma once
/// \file evaluate.hpp
/// `mlfma2d [evaluate] ...`: potentials (and fields) of one point set by the FMM, optionally
/// verified against direct summation and written to a file. Its option blocks and the solver runs
/// are shared with `compare`.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/options.hpp"
#include "app/report.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::app {

/// \brief `mlfma2d [evaluate] ...`
struct EvaluateArgs {
  std::string input;    ///< empty: the bundled data set
  std::string targets;  ///< separate targets file, empty when none
  std::string output;   ///< result file, empty when none
  /// --sources: "charges", "dipoles", "both"; empty: every kind the input holds (its densities
  /// and kinds set options.densities, charges and dipoles once it is read).
  std::string sources;
  Options options;  ///< ct, level_offset, eps, terms, backend, threads, field, hessian, gpu_memory
  bool verify = false;
  long long verify_sample = -1;  ///< --verify-sample M; -1 = automatic (all, or 1000 if large)
  int repeat = 1;
  std::uint64_t seed = 1;
  ReportFormat report = ReportFormat::Text;
  bool quiet = false;
  /// --model FILE: the papers' fitted coefficients choose the back end (--backend auto); empty:
  /// the library chooses (Options::backend "auto", the depth by its cost model).
  std::string model;
};

/// The option blocks of the commands that evaluate on one geometry (evaluate, compare), in the
/// order their help shows them around the command's own options.
std::vector<OptionText> input_options();
std::vector<OptionText> tree_options();
std::vector<OptionText> run_options();
/// The arguments of those blocks (compare adds its own).
EvaluateArgs evaluate_args(const po::variables_map& vm);

/// The evaluate command (its row in command_rows()); its --help is the program's main help.
CommandRow evaluate_command();

/// A few values of density 0 of `r`, for the report of a run whose output goes nowhere.
std::string preview(const Result& r, int densities);
/// The checks that fail a run, after its report and output are out: non-finite values
/// (`bad_values`, empty: none) and a failed --verify, as one CheckFailure.
void throw_failed_checks(const std::string& bad_values, const Verification& verification);

/// Builds a Solver for the points of `in` with `options` (their densities and kinds of sources
/// those of the points: with_sources_of), evaluates it `repeat` times, and fills
/// `report` (input, options, tree figures, the timings of the run with the median total, every
/// total, warnings). `label` starts its progress lines; the solver's warnings go to `err` when
/// `warn`. Returns the last evaluation's result.
Result run_solver(const LoadedInput& in, const Options& options, int repeat,
                  const Progress& progress, const std::string& label, bool warn, std::ostream& err,
                  RunReport* report);

}  // namespace mlfma2d::app
