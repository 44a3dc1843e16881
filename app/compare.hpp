#pragma once
/// \file compare.hpp
/// `mlfma2d compare`: every near-field back end on one geometry -- verified against direct
/// summation (computed once) and against the cpu back end, timed phase by phase, tabulated with
/// the speedups over cpu and over indexing.
#include <iosfwd>
#include <string>

#include "app/cli.hpp"
#include "app/report.hpp"

namespace mlfma2d::app {

/// Runs the command; the report on `out`, notes and progress on `err`. Throws RuntimeFailure
/// (after printing the table) when a back end disagrees with cpu by more than kCompareTolerance.
int run_compare(const CompareArgs& args, std::ostream& out, std::ostream& err);

/// Relative L2 difference from the cpu back end's potential above which compare fails.
constexpr double kCompareTolerance = 1e-12;

/// Writes the table atomically: CSV (header, one row per back end, '#' metadata lines first) or
/// HDF5 (one dataset per column under /compare, text as variable-length strings, each with a
/// "unit" attribute), chosen by the extension. Throws IoError.
void write_compare_table(const std::string& path, const CompareReport& report);

/// The compare --help section on the table's columns and the JSON keys.
std::string compare_help_columns();

}  // namespace mlfma2d::app
