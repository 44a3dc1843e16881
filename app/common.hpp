#pragma once
/// \file common.hpp
/// Steps shared by the commands that evaluate (evaluate, compare): reading the input, checking
/// an output path before the work, progress lines, and the direct-summation reference of
/// --verify (computed once, compared with any number of results).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/report.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::app {

/// \brief Progress lines, only for a person watching a terminal.
class Progress {
 public:
  Progress(std::ostream& err, bool enabled) : err_(err), enabled_(enabled) {}
  void stage(const std::string& text) const;
  bool enabled() const { return enabled_; }
  std::ostream* stream() const { return enabled_ ? &err_ : nullptr; }

 private:
  std::ostream& err_;
  bool enabled_;
};

/// \brief The points of a run and where they came from.
struct LoadedInput {
  PointSet points;
  std::string input;          ///< as given, or the bundled data set's path
  std::string targets_input;  ///< separate targets' origin, empty when none
  bool self() const { return !points.has_targets(); }
  const std::vector<double>& tx() const { return self() ? points.x : points.tx; }
  const std::vector<double>& ty() const { return self() ? points.y : points.ty; }
};

/// Where the points come from: `input` (empty: the bundled data set, announced on `err` unless
/// quiet) and the separate `targets` file if given. Reads nothing, so outputs can be checked
/// against the inputs first.
LoadedInput resolve_input(const std::string& input, const std::string& targets, bool quiet,
                          std::ostream& err);
/// Reads the points named by resolve_input.
void read_input(LoadedInput* in, const Progress& progress);

/// Whether two paths name the same file (links included).
bool same_file(const std::string& a, const std::string& b);
/// Fails (IoError) before a long computation when `path` cannot be written: missing or read-only
/// folder, or a folder of that name.
void check_output_path(const std::string& path);
/// Refuses (InvalidInput) an output file that is the input or the targets file.
void check_not_an_input(const std::string& option, const std::string& output,
                        const LoadedInput& in);

/// \brief Direct summation at the targets --verify checks: all of them when N_sources *
/// N_targets <= 4e8 (or --verify-sample 0), else a random sample (1000, or --verify-sample M).
struct Reference {
  std::vector<std::size_t> which;  ///< sampled target indices; empty = all targets
  bool sampled = false;
  std::size_t n_checked = 0;
  bool field = false;
  std::vector<double> phi, fx, fy;
  double seconds = 0;
};
Reference direct_reference(const LoadedInput& in, bool field, long long verify_sample,
                           std::uint64_t seed, int threads);

/// Errors of `result` (caller order, all targets) against the reference.
Verification verify(const Reference& reference, const Result& result);

/// Relative L2 and max abs difference of two results' potentials (e.g. a back end against cpu).
ErrorNorms compare_results(const Result& value, const Result& reference);

/// Writes a file atomically: `write(tmp)` fills a temporary file beside `path`, renamed onto it
/// only when complete (a failure leaves an existing `path` as it was). Throws IoError.
void write_atomically(const std::string& path,
                      const std::function<void(const std::string&)>& write);
/// A text file, atomically.
void write_text_file(const std::string& path, const std::string& text);

/// Index of the run with the median total (the lower median), so a reported run's phases add up.
std::size_t median_run(const std::vector<Timings>& runs);

}  // namespace mlfma2d::app
