#pragma once
/// \file cli.hpp
/// Command-line parsing into plain structs, and the commands. Parsing touches no file and runs
/// nothing, so a fuzzer can drive parse_command_line() alone; every bad argument becomes
/// InvalidInput with a one-line message naming the option.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::app {

enum class Command { Evaluate, Generate, Compare, Sweep, ModelFit, Help, Version };
enum class ReportFormat { Text, Json };

/// \brief `mlfma2d [evaluate] ...`
struct EvaluateArgs {
  std::string input;    ///< empty: the bundled data set
  std::string targets;  ///< separate targets file, empty when none
  std::string output;   ///< result file, empty when none
  Options options;      ///< ct, level_offset, eps, terms, backend, threads, field, gpu_memory
  bool eps_given = false;
  bool terms_given = false;
  bool verify = false;
  long long verify_sample = -1;  ///< --verify-sample M; -1 = automatic (all, or 1000 if large)
  int repeat = 1;
  std::uint64_t seed = 1;
  ReportFormat report = ReportFormat::Text;
  bool quiet = false;
  bool backend_auto = false;  ///< --backend auto: choose the back end (app/auto_select.hpp)
  bool levels_auto = false;   ///< --levels auto: choose the level offset
  std::string model;          ///< --model FILE: fitted coefficients for auto; empty = calibrate
};

/// \brief `mlfma2d compare ...`: the evaluate options (output = the table file, .csv or .h5), every
/// back end on one geometry.
struct CompareArgs {
  EvaluateArgs common;
  std::vector<std::string> backends;  ///< --backends; empty = every known back end
};

/// \brief `mlfma2d sweep NAME ...`: re-run one of the papers' experiments (app/sweep.hpp).
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

/// \brief `mlfma2d model fit CSV... --output FILE`: fit the papers' model to sweep data.
struct ModelFitArgs {
  std::vector<std::string> csv;
  std::string output;    ///< coefficients (JSON); empty = print only
  std::string plot_dir;  ///< predicted-vs-measured plots; empty = none
  ReportFormat report = ReportFormat::Text;
  bool quiet = false;
};

/// \brief `mlfma2d generate ...`
struct GenerateArgs {
  std::string shape;
  std::size_t n = 0;
  std::uint64_t seed = 1;
  std::string output;
  bool quiet = false;
};

/// \brief A parsed command line. For Help, `help_topic` names the command ("" = the main help).
struct ParsedCommand {
  Command command = Command::Evaluate;
  std::string help_topic;
  EvaluateArgs evaluate;
  GenerateArgs generate;
  CompareArgs compare;
  SweepArgs sweep;
  ModelFitArgs model_fit;
};

/// \brief Parse argv (argv[0] is the program name). Throws InvalidInput for anything invalid.
ParsedCommand parse_command_line(int argc, const char* const* argv);

/// \brief The --help text of a command ("" = evaluate and overview, "generate", "compare",
/// "sweep", "model").
std::string help_text(const std::string& topic);

/// \brief Run a parsed command; report on `out`, notes, warnings and progress on `err`.
/// Throws the library's typed errors; returns the exit code on success (0).
int run_command(const ParsedCommand& command, std::ostream& out, std::ostream& err);

/// \brief The bundled default data set's file name and where it was looked for.
constexpr const char* kBundledDataSet = "plate_n20000.h5";
/// Path of the bundled data set; throws IoError listing the places searched when not found.
std::string find_bundled_data_set();

}  // namespace mlfma2d::app
