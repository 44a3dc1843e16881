#pragma once
/// \file inputs.hpp
/// Where the points of a run come from, and where its outputs may go: the input files (or the
/// bundled data set), checks of an output path before the work, and the direct-summation
/// reference of --verify (computed once, compared with any number of results).
#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/progress.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::app {

/// \brief The bundled default data set's file name.
constexpr const char* kBundledDataSet = "plate_n20000.h5";
/// Path of the bundled data set; throws IoError listing the places searched when not found.
std::string find_bundled_data_set();
/// Where it is looked for, in order, as --help says it.
std::string data_search_text();

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
/// Keeps the kinds of sources `kinds` names (--sources): "charges" or "dipoles" (the other
/// dropped), "both" (both required) or "" (every kind the input holds). Throws InvalidInput
/// naming the file when it holds no such sources.
void select_sources(LoadedInput* in, const std::string& kinds);
/// The kinds of sources `kinds` (--sources) keeps of a file `input` holding charges and/or
/// dipoles (`has_*`): into *charges and *dipoles. Throws select_sources' InvalidInput.
void check_source_kinds(const std::string& input, const std::string& kinds, bool has_charges,
                        bool has_dipoles, bool* charges, bool* dipoles);

/// Whether two paths name the same file (links included).
bool same_file(const std::string& a, const std::string& b);
/// Refuses (InvalidInput) an output file that is the input or the targets file.
void check_not_an_input(const std::string& option, const std::string& output,
                        const LoadedInput& in);

/// The sources of a point set as the Solver takes them (null where it has none).
Densities densities_of(const PointSet& points);
/// `options` with the densities and kinds of sources of `points` (Options::densities, charges,
/// dipoles).
Options with_sources_of(const PointSet& points, Options options);

/// \brief Direct summation at the targets --verify checks: all of them when N_sources *
/// N_targets <= 4e8 (or --verify-sample 0), else a random sample (1000, or --verify-sample M).
/// Every output the options ask for, of every density: nd x n_checked each.
struct Reference {
  std::vector<std::size_t> which;  ///< sampled target indices; empty = all targets
  bool sampled = false;
  std::size_t n_checked = 0;
  int densities = 1;
  bool field = false, hessian = false;
  std::vector<double> phi, fx, fy;
  std::vector<double> hxx, hxy, hyy;
  double seconds = 0;
};
/// \brief The targets --verify checks of `targets` (the rule above): `which` sampled indices in
/// ascending order (empty: all), or all of them.
struct VerifySample {
  std::vector<std::size_t> which;
  bool sampled = false;
  std::size_t n_checked = 0;
};
VerifySample verify_sample(std::size_t sources, std::size_t targets, long long sample,
                           std::uint64_t seed);
/// A reference of `sample`'s targets for these options (its `which` left empty), every output
/// zeroed, nd x n_checked, and pointed at by `out` for direct_sum to add into.
Reference empty_reference(const VerifySample& sample, const Options& options, Outputs* out);
/// The reference of the sources of `in` for Options::densities, charges, dipoles, field,
/// hessian and threads.
Reference direct_reference(const LoadedInput& in, const Options& options, long long verify_sample,
                           std::uint64_t seed);

/// \brief Accuracy of one run against direct summation: each output's errors per density, and
/// the figures of its worst density (the largest relative L2 error; nd = 1: the only one).
struct Verification {
  bool done = false;
  bool sampled = false;       ///< checked at a random sample of targets, not all
  std::size_t n_checked = 0;  ///< targets compared
  int densities = 1;          ///< nd compared
  double rel_l2 = 0;          ///< potential: relative L2 error (the worst density's)
  double max_abs = 0;         ///< potential: largest absolute error (of that density)
  int worst = 0;              ///< potential: that density
  bool has_field = false;     ///< the field was computed and compared
  double field_rel_l2 = 0;    ///< field: relative L2 error over the 2-vector (E_x, E_y)
  double field_max_abs = 0;   ///< field: largest |E - E_ref| (Euclidean)
  int field_worst = 0;
  bool has_hessian = false;    ///< the Hessian was computed and compared
  double hessian_rel_l2 = 0;   ///< Hessian: relative L2 error over (H_xx, H_xy) (H_yy = -H_xx)
  double hessian_max_abs = 0;  ///< Hessian: largest |(H_xx, H_xy) - reference| (Euclidean)
  int hessian_worst = 0;
  /// Per density d: the errors of the potential, the field and the Hessian ({0, 0} for those
  /// not computed).
  std::vector<std::array<ErrorNorms, 3>> per_density;
  double direct_seconds = 0;  ///< wall time of the reference direct sum
  /// Whether the errors were judged against a tolerance: p came from eps. With --terms there is
  /// no tolerance: nothing is claimed of the errors' size (only a non-finite error fails).
  bool checked = false;
  /// What the errors must not exceed when checked: max(eps, the geometry's accuracy floor);
  /// infinity otherwise.
  double tolerance = 0;
  bool passed = true;   ///< errors finite and, when checked, within the tolerance
  std::string failure;  ///< why not, one sentence
};
/// Errors of `result` (caller order, all targets) against the reference, judged against eps
/// (when the expansion terms came from it: `from_eps`) or the accuracy floor, if larger.
Verification verify(const Reference& reference, const Result& result, double eps, bool from_eps,
                    double accuracy_floor);

/// \brief Values of a result that are not finite (inf or NaN).
struct NonFinite {
  std::size_t potential = 0, field = 0;  ///< of the potentials, of the field components
  std::size_t hessian = 0;               ///< of the Hessian components
  std::size_t total() const { return potential + field + hessian; }
  /// "3 of 2000 potentials and 0 of 4000 field components are not finite (inf or NaN)"
  std::string text(const Result& result) const;
  /// The same of `values` potentials (and as many field vectors and Hessians, when computed).
  std::string text(std::size_t values, bool with_field, bool with_hessian) const;
};
NonFinite count_non_finite(const Result& result);

/// Fails (RuntimeFailure: exit 4) before `what` when it would need more than the memory this
/// machine has available (MemAvailable, or less under ulimit -v), saying the estimate; does
/// nothing when that is unknown.
void check_memory(const std::string& what, double bytes);
/// \brief The sizes of one tree and its plan (TreeStats' figures; boxes estimated from leaves
/// where only those are known).
struct TreeSize {
  double boxes = 0, leaves = 0, m2l_pairs = 0;
  double predicted = 0;  ///< a candidate's predicted seconds: the choice keeps the least
};

/// \brief What an evaluation's memory depends on: the caller's points, the back end, p and the
/// trees alive at once (empty before the tree is known: the estimate is then a lower bound).
struct MemoryShape {
  std::size_t sources = 0, targets = 0;
  bool self = true;
  /// The evaluation's: its outputs (field, hessian), densities, dipoles and the back end as run
  /// ("auto" before it is resolved: counted as cpu).
  Options options;
  int terms = 0;       ///< expansion terms p (0: unknown, no expansions counted)
  TreeSize evaluated;  ///< the tree evaluated on
  /// While CT is chosen (--ct auto): the candidates' trees in the order built (the best so far
  /// is alive while the next is built).
  std::vector<TreeSize> candidates;
};

/// \brief Bytes an evaluation allocates beyond what is resident before the Solver (the input
/// points, the program), phase by phase; each phase counts what is alive at its peak. A model of
/// every array (docs/performance.md, "Memory"), for unscaled coordinates without coincident
/// sources (scaling and merging add copies: 16 bytes per point).
struct MemoryEstimate {
  double sort = 0;        ///< the Morton sort: keys, records and sorted arrays
  double choose = 0;      ///< sorted points and two candidate trees and plans (--ct auto)
  double setup = 0;       ///< tree, plan and the back end's set-up (its transient layout)
  double evaluation = 0;  ///< tree, plan, back end, expansions, far-field and result arrays
  double peak() const;
};
MemoryEstimate evaluation_memory(const MemoryShape& shape);

}  // namespace mlfma2d::app
