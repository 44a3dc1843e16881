#pragma once
/// \file report.hpp
/// The run report of the command-line program: one plain struct, and ONE table of its fields
/// (report_fields()) from which the text report, the JSON report, the result-file attributes and
/// compare's geometry and table columns are all made, so they never disagree.
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/inputs.hpp"
#include "mlfma2d/distributed_figures.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::app {

/// \brief Everything one evaluate run reports.
struct RunReport {
  std::string input;          ///< source file (as given, or the bundled data set's path)
  std::string targets_input;  ///< separate target file, empty when none
  std::string output;         ///< result file, empty when none
  Options options;            ///< as run (terms = 0 means "derived from eps"; the densities and
                              ///< kinds of sources evaluated, the outputs)
  bool vectors_per_density = false;  ///< dipoles: an orientation per source and density
  int threads_used = 0;              ///< OpenMP threads actually used
  TreeStats stats;
  Timings timings;             ///< of the evaluation with the median total
  int repeat = 1;              ///< evaluations run
  std::vector<double> totals;  ///< total seconds of every evaluation, in run order
  std::vector<std::string> warnings;
  Verification verification;
  tuning::AutoSelection auto_selection;  ///< what was chosen automatically (back end, depth), why
  std::string preview;                   ///< without --output: the first values, as text
  /// Host memory: the process's peak resident bytes after the evaluations (VmHWM; 0 where not
  /// known), and the estimate of it (what was resident before the Solver + evaluation_memory).
  std::size_t memory_peak = 0;
  double memory_estimate = 0;
  /// Under mpirun (app/ranks.hpp): every rank's figures of the reported evaluation, in rank order;
  /// empty for one process. timings are then the slowest rank's, totals the slowest rank's of
  /// each evaluation, memory_peak the largest rank's.
  std::vector<DistributedFigures> ranks;
};

/// \brief Where a field goes (bits of ReportField::use; none: the text report only).
enum FieldUse : unsigned {
  kJson = 1u << 0,        ///< the JSON report (and compare's report of each back end)
  kAttribute = 1u << 1,   ///< result-file attributes
  kGeometry = 1u << 2,    ///< compare's JSON: the geometry, stated once for all back ends
  kColumnHead = 1u << 3,  ///< compare's table: the columns right after the back end's name
  kColumnTail = 1u << 4,  ///< compare's table: the last columns
  kCompared = 1u << 5,    ///< compare's phase times (its text table and its table file)
  kTextIfSet = 1u << 6,   ///< text: shown only when true, non-zero or non-empty
};

/// \brief One field of the report.
struct ReportField {
  /// "" (top level), "timings", "error" (with --verify), "auto" (with --backend/--levels
  /// auto) or "distributed" (under mpirun): a JSON object of that name; attribute names are
  /// prefixed by section_prefix().
  const char* section;
  const char* key;  ///< JSON key, attribute name (after the prefix), table column
  /// Text: the heading of its line (fields of one heading share the line, in table order), or
  /// null when the text report leaves it out. For "timings": the phase's label.
  const char* line;
  /// Text: the field on its line, "{}" standing for the value ("t = {}", "{} pairs"); without
  /// "{}", the words alone, shown when the value is true.
  const char* text;
  /// Text: printf conversion of a real value ("%.3g"), or "%+d" for a signed integer;
  /// null: integers as they are, reals as "%g".
  const char* number;
  unsigned use;  ///< FieldUse bits
  /// The value; a discarded value (nlohmann::json::value_t::discarded) when absent, null when
  /// "none" (JSON null; no attribute, no text).
  std::function<nlohmann::json(const RunReport&)> get;
  /// The unit of a table column: "s", "B", "pairs/s" or "".
  const char* unit = "";
};
/// The table, in text order.
const std::vector<ReportField>& report_fields();
/// Attribute name prefix of a section: "" (top level), "timing_", "error_", "auto_",
/// "distributed_".
std::string section_prefix(const std::string& section);

/// \brief The report as one JSON object (keys documented in --help and the README).
nlohmann::json to_json(const RunReport& report);
/// \brief One section of the JSON report ("auto", "error", ...): null when absent.
nlohmann::json section_json(const RunReport& report, const std::string& section);
/// \brief Under mpirun: the rows of the section "distributed" (app/report_ranks.cpp), in
/// report_fields() after the others.
std::vector<ReportField> ranks_fields();
/// \brief Under mpirun: the ranks' line and a line a rank (the text report's).
std::string ranks_text(const RunReport& report);
/// \brief The report as human-readable text, ending with a newline.
std::string to_text(const RunReport& report);
/// \brief Result-file attributes: every parameter, tree figure, timing (timing_<phase>, seconds),
/// verification figures and the version.
std::map<std::string, AttrValue> to_attributes(const RunReport& report);

/// \brief The text lines of the fields in the table between headings `from` and `to` (both
/// included): the geometry (input ... expansion) that evaluate and compare both print.
std::string field_lines(const RunReport& report, const std::string& from, const std::string& to);
/// \brief The first line of a text report: version, command, sizes.
std::string title_line(const RunReport& report, const char* command);
/// \brief The text of what was chosen automatically: the choice, why, predicted against
/// `measured_seconds` per evaluation (0: not shown), and every candidate.
std::string auto_text(const tuning::AutoSelection& selection, double measured_seconds);
/// \brief A field's value as text ("-" when null).
std::string value_text(const ReportField& field, const nlohmann::json& value);
/// \brief Bytes with a binary unit, for people ("1.5 MiB").
std::string human_bytes(std::size_t bytes);
/// \brief Writes a report on stdout, checking that it was written (IoError if not).
void print_report(std::ostream& out, const std::string& report);
/// \brief Near-field pairs per second: near_pairs / near kernel time (near total when the kernel
/// time is 0); 0 when neither was timed.
double pairs_per_second(const RunReport& report);
/// \brief Back ends of `names` that cannot run here, with why, in plain words: the GPU back ends
/// all say the same, once ("no GPU was found (...)").
std::vector<std::pair<std::string, std::string>> unavailable_backends(
    const std::vector<std::string>& names);
/// \brief Those as lines, back ends with the same reason on one: "indexing, shared: no GPU ...".
std::vector<std::string> grouped_reasons(
    const std::vector<std::pair<std::string, std::string>>& unavailable);
/// \brief A number for JSON: the value when finite, else null.
nlohmann::json number_or_null(double v);

}  // namespace mlfma2d::app
