#pragma once
/// \file report.hpp
/// The run report of the command-line program: one plain struct, printed as text or JSON and
/// written as result-file attributes by the same code, so the three never disagree. Kept free of
/// the option parser so that a multi-back-end `compare` command can build several and tabulate.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/auto_select.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::app {

/// \brief Accuracy of one run against direct summation.
struct Verification {
  bool done = false;
  bool sampled = false;       ///< checked at a random sample of targets, not all
  std::size_t n_checked = 0;  ///< targets compared
  double rel_l2 = 0;          ///< potential: relative L2 error
  double max_abs = 0;         ///< potential: largest absolute error
  bool has_field = false;     ///< the field was computed and compared
  double field_rel_l2 = 0;    ///< field: relative L2 error over the 2-vector (E_x, E_y)
  double field_max_abs = 0;   ///< field: largest |E - E_ref| (Euclidean)
  double direct_seconds = 0;  ///< wall time of the reference direct sum
};

/// \brief Everything one evaluate run reports.
struct RunReport {
  std::string input;          ///< source file (as given, or the bundled data set's path)
  std::string targets_input;  ///< separate target file, empty when none
  std::string output;         ///< result file, empty when none
  Options options;            ///< as requested (terms = 0 means "derived from eps")
  int threads_used = 0;       ///< OpenMP threads actually used
  TreeStats stats;
  Timings timings;             ///< of the evaluation with the median total
  int repeat = 1;              ///< evaluations run
  std::vector<double> totals;  ///< total seconds of every evaluation, in run order
  std::vector<std::string> warnings;
  Verification verification;
  AutoSelection auto_selection;  ///< --backend auto / --levels auto: what was chosen and why
};

/// \brief One row of the phase table: label for text, key for JSON and attributes.
struct PhaseRow {
  const char* label;  ///< e.g. "near kernel"
  const char* key;    ///< e.g. "near_kernel"
  double Timings::*seconds;
};
/// \brief The timed phases in report order (tree ... total).
const std::vector<PhaseRow>& phase_rows();

/// \brief Near-field pairs per second: near_pairs / near kernel time (near total when the kernel
/// time is 0); 0 when neither was timed.
double pairs_per_second(const RunReport& report);

/// \brief Far-field GFLOP/s: the far field's operation count over its time; 0 when not timed.
double far_gflops(const RunReport& report);

/// \brief The report as one JSON object (keys documented in --help and the README).
nlohmann::json to_json(const RunReport& report);
/// \brief The report as human-readable text, ending with a newline.
std::string to_text(const RunReport& report);
/// \brief Result-file attributes: every parameter, tree figure, timing (timing_<phase>, seconds),
/// verification figures and the version.
std::map<std::string, AttrValue> to_attributes(const RunReport& report);

/// \brief The auto-selection as JSON (the report's key "auto").
nlohmann::json to_json(const AutoSelection& selection);

// ---- compare: one RunReport per back end, tabulated.

/// \brief One back end of `mlfma2d compare`.
struct CompareRow {
  RunReport run;                ///< its evaluate report (verification against direct summation)
  ErrorNorms vs_cpu;            ///< potential against the cpu back end's
  double speedup_cpu_near = 0;  ///< cpu near total / this near total
  double speedup_cpu_total = 0;
  double speedup_indexing_near = 0;  ///< NaN when indexing did not run
  double speedup_indexing_total = 0;
};

/// \brief The whole comparison.
struct CompareReport {
  std::string construction;  ///< how the back ends' solvers were built
  std::vector<CompareRow> rows;
  std::vector<std::pair<std::string, std::string>> skipped;  ///< (back end, why)
  std::string output;
  AutoSelection auto_selection;  ///< --levels auto
};

/// \brief One column of the comparison table: numbers, or text (the back end's name).
struct TableColumn {
  std::string name;
  std::string unit;  ///< "s", "B", "pairs/s", "" (ratio or count)
  bool is_text = false;
  std::vector<double> numbers;
  std::vector<std::string> texts;
};
/// The columns written to CSV and HDF5 (and described in compare --help), one value per row.
std::vector<TableColumn> compare_columns(const CompareReport& report);

nlohmann::json to_json(const CompareReport& report);
/// The tables a person reads: geometry, then times (ms) and accuracy/speedups per back end.
std::string to_text(const CompareReport& report);

}  // namespace mlfma2d::app
