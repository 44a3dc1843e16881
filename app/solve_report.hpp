#pragma once
/// \file solve_report.hpp
/// The report of `mlfma2d solve`: one plain struct, and ONE table of its fields (solve_fields())
/// from which the text report (engineering units: pF/m, nH/m) and the JSON report (SI) are both
/// made, so they never disagree; the help's list of JSON keys comes from the same table.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d::app {

/// \brief Everything one solve reports.
struct SolveRun {
  std::string input;               ///< contour file
  std::string output, plot, rlgc;  ///< files written, empty when none
  ElectrostaticOptions options;    ///< as run
  /// The option that fixed the mesh ("--panels" or "--panel-size"), empty for the default mesh:
  /// says why the accuracy was not estimated when options.accuracy is 0.
  std::string mesh_option;
  ElectrostaticSolution solution;
  std::vector<double> tx, ty;  ///< targets (m), empty when none
  FieldAtTargets field;        ///< at the targets
  int ranks = 1;               ///< the MPI ranks the solve ran over (mpirun; 1: one process)
};

/// \brief One field of the report.
struct SolveField {
  const char* key;   ///< JSON key
  const char* unit;  ///< SI unit of the JSON value ("" for counts, names and ratios)
  /// Text: the heading of its line, or null when the text report leaves it out.
  const char* label;
  const char* text_unit = "";  ///< text: the unit after the value (pF/m, nH/m, ...)
  double text_scale = 1;       ///< text: the value shown is the SI value times this
  /// The value (SI); a discarded value (nlohmann::json::value_t::discarded) when absent.
  std::function<nlohmann::json(const SolveRun&)> get = {};
  /// Text: its own lines (tables, sentences) instead of the generic "label value unit"; an empty
  /// string leaves the field out.
  std::function<std::string(const SolveRun&, const SolveField&)> text = {};
};

/// The table, in text order.
const std::vector<SolveField>& solve_fields();
/// The report as one JSON object (SI units).
nlohmann::json solve_json(const SolveRun& run);
/// The report as text, ending with a newline.
std::string solve_text(const SolveRun& run);
/// The JSON keys with their units, for --help: "capacitance (F/m), ...".
std::string solve_json_keys();

/// \brief The accuracy as a sentence: "estimate 3.1e-08 (target 1e-06: met)", "... NOT met, the
/// mesh limit ... reached)", "not estimated (fixed mesh: --panels given; add --accuracy)". The
/// target is the one asked (options.accuracy); met only when the solver says so AND its
/// estimate is there and below that target.
std::string accuracy_text(const SolveRun& run);
/// Whether the accuracy target was checked and met (the rule of accuracy_text()).
bool accuracy_met(const SolveRun& run);
/// A mode's name: "even" or "odd" for a symmetric pair (by its voltages), else "mode N" (1-based).
std::string mode_label(const ElectrostaticSolution& s, std::size_t mode);

}  // namespace mlfma2d::app
