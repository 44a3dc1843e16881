#include "app/inputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <random>
#include <unordered_set>

#include "runtime/text.hpp"
#include "tuning/tuning.hpp"

#ifndef MLFMA2D_DATA_DIR
#define MLFMA2D_DATA_DIR ""
#endif
#ifndef MLFMA2D_INSTALL_DATA_DIR
#define MLFMA2D_INSTALL_DATA_DIR ""
#endif

namespace mlfma2d::app {

namespace fs = std::filesystem;

namespace {

// Direct summation at every target up to this many pairs; beyond it a sample (--verify).
constexpr double kVerifyAllPairs = 4e8;
constexpr std::size_t kVerifyDefaultSample = 1000;

// m distinct indices of [0, n), sorted; Floyd's algorithm keeps memory O(m) for huge n.
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::unordered_set<std::size_t> chosen;
  chosen.reserve(2 * m);
  for (std::size_t j = n - m; j < n; ++j) {
    const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, j)(rng);
    if (!chosen.insert(pick).second) chosen.insert(j);
  }
  std::vector<std::size_t> out(chosen.begin(), chosen.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string find_bundled_data_set() {
  // The environment first; then an installed program's own data (beside it, so that a relocated
  // install finds its data too, then where it was installed); the source tree's data last.
  std::vector<fs::path> folders;
  if (const char* env = std::getenv("MLFMA2D_DATA_DIR"); env && *env) folders.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) folders.push_back(exe.parent_path().parent_path() / "share" / "mlfma2d" / "data");
  if (*MLFMA2D_INSTALL_DATA_DIR) folders.emplace_back(MLFMA2D_INSTALL_DATA_DIR);
  if (*MLFMA2D_DATA_DIR) folders.emplace_back(MLFMA2D_DATA_DIR);
  std::vector<std::string> searched;
  for (const fs::path& folder : folders) {
    const fs::path candidate = folder / kBundledDataSet;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    searched.push_back(folder.string());
  }
  throw IoError(std::string("no --input given and the bundled data set ") + kBundledDataSet +
                " was not found (searched: " + join(searched, ", ") +
                "); pass --input FILE or set MLFMA2D_DATA_DIR");
}

std::string data_search_text() {
  return std::string("$MLFMA2D_DATA_DIR, ../share/mlfma2d/data beside the program, ") +
         MLFMA2D_INSTALL_DATA_DIR + " and " + MLFMA2D_DATA_DIR + ", in this order";
}

LoadedInput resolve_input(const std::string& input, const std::string& targets, bool quiet,
                          std::ostream& err) {
  LoadedInput in;
  in.input = input;
  if (in.input.empty()) {
    in.input = find_bundled_data_set();
    if (!quiet) err << "no --input: using bundled data set " << in.input << "\n";
  }
  in.targets_input = targets;
  return in;
}

void read_input(LoadedInput* in, const Progress& progress) {
  {
    const auto step = progress.step("reading " + in->input);
    in->points = read_points(in->input);
  }
  if (!in->targets_input.empty()) {
    const auto step = progress.step("reading targets " + in->targets_input);
    in->points.tx.clear();
    in->points.ty.clear();
    read_targets(in->targets_input, &in->points.tx, &in->points.ty);
  } else if (in->points.has_targets()) {
    in->targets_input = in->input + " (/targets)";
  }
}

void check_source_kinds(const std::string& input, const std::string& kinds, bool has_charges,
                        bool has_dipoles, bool* charges, bool* dipoles) {
  *charges = (kinds.empty() || kinds != "dipoles") && has_charges;
  *dipoles = (kinds.empty() || kinds != "charges") && has_dipoles;
  if (!kinds.empty() && kinds != "dipoles" && !has_charges) {
    throw InvalidInput("--sources " + kinds + ": " + input +
                       " holds no charges (HDF5 /sources/q; CSV columns q or q0, q1, ...)");
  }
  if (!kinds.empty() && kinds != "charges" && !has_dipoles) {
    throw InvalidInput("--sources " + kinds + ": " + input +
                       " holds no dipoles (HDF5 /sources/dipole_strength and "
                       "/sources/dipole_vector; CSV columns d, vx, vy or d0, vx0, vy0, ...)");
  }
}

void select_sources(LoadedInput* in, const std::string& kinds) {
  PointSet& p = in->points;
  bool charges = false, dipoles = false;
  check_source_kinds(in->input, kinds, p.has_charges(), p.has_dipoles(), &charges, &dipoles);
  if (!charges) p.q = {};
  if (!dipoles) {
    p.dipole_strengths = {};
    p.dipole_vectors = {};
    p.vectors_per_density = false;
  }
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;  // also catches hard and symbolic links
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

void check_not_an_input(const std::string& option, const std::string& output,
                        const LoadedInput& in) {
  if (same_file(output, in.input)) {
    throw InvalidInput("--" + option + ": '" + output + "' is the input file; choose another name");
  }
  if (!in.targets_input.empty() && same_file(output, in.targets_input)) {
    throw InvalidInput("--" + option + ": '" + output +
                       "' is the --targets file; choose another name");
  }
}

Densities densities_of(const PointSet& p) {
  Densities d;
  if (p.has_charges()) d.charges = p.q.data();
  if (p.has_dipoles()) {
    d.dipole_strengths = p.dipole_strengths.data();
    d.dipole_vectors = p.dipole_vectors.data();
    d.vectors_per_density = p.vectors_per_density;
  }
  return d;
}

Options with_sources_of(const PointSet& p, Options options) {
  options.densities = p.densities;
  options.charges = p.has_charges();
  options.dipoles = p.has_dipoles();
  return options;
}

VerifySample verify_sample(std::size_t sources, std::size_t targets, long long sample,
                           std::uint64_t seed) {
  const double pairs = static_cast<double>(sources) * static_cast<double>(targets);
  std::size_t m = targets;
  if (sample > 0) {
    m = std::min<std::size_t>(targets, static_cast<std::size_t>(sample));
  } else if (sample < 0 && pairs > kVerifyAllPairs) {
    m = std::min(targets, kVerifyDefaultSample);
  }
  VerifySample v;
  v.sampled = m < targets;
  v.n_checked = m;
  if (v.sampled) v.which = sample_indices(targets, m, seed);
  return v;
}

Reference empty_reference(const VerifySample& sample, const Options& options, Outputs* out) {
  Reference r;
  r.sampled = sample.sampled;
  r.n_checked = sample.n_checked;
  r.densities = options.densities;
  r.field = options.field;
  r.hessian = options.hessian;
  const std::size_t all = std::size_t(r.densities) * r.n_checked;
  r.phi.assign(all, 0.0);
  out->potential = r.phi.data();
  if (r.field) {
    for (auto* f : {&r.fx, &r.fy}) f->assign(all, 0.0);
    out->field_x = r.fx.data();
    out->field_y = r.fy.data();
  }
  if (r.hessian) {
    for (auto* h : {&r.hxx, &r.hxy, &r.hyy}) h->assign(all, 0.0);
    out->hessian_xx = r.hxx.data();
    out->hessian_xy = r.hxy.data();
    out->hessian_yy = r.hyy.data();
  }
  return r;
}

Reference direct_reference(const LoadedInput& in, const Options& options, long long verify_sample,
                           std::uint64_t seed) {
  const VerifySample sample =
      app::verify_sample(in.points.x.size(), in.tx().size(), verify_sample, seed);
  Outputs out;
  Reference r = empty_reference(sample, options, &out);
  r.which = sample.which;
  const DirectOptions d = direct_options(options);
  const auto start = std::chrono::steady_clock::now();
  direct_sum(in.points.x, in.points.y, in.tx(), in.ty(), densities_of(in.points), d, r.which, out);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

namespace {

// Density d's values (of nd x n) at the checked targets `at` (empty: all n).
std::vector<double> checked(const std::vector<double>& values, int d, std::size_t n,
                            const std::vector<std::size_t>& at) {
  const double* row = values.data() + std::size_t(d) * n;
  if (at.empty()) return std::vector<double>(row, row + n);
  std::vector<double> out(at.size());
  for (std::size_t i = 0; i < at.size(); ++i) out[i] = row[at[i]];
  return out;
}

// Density d's reference values (nd x m).
std::vector<double> row_of(const std::vector<double>& values, int d, std::size_t m) {
  return std::vector<double>(values.begin() + std::ptrdiff_t(std::size_t(d) * m),
                             values.begin() + std::ptrdiff_t(std::size_t(d + 1) * m));
}

// The density of the largest relative L2 error of output k (a NaN counts as the largest).
int worst_density(const std::vector<std::array<ErrorNorms, 3>>& errors, int k) {
  int worst = 0;
  for (int d = 1; d < int(errors.size()); ++d) {
    const double e = errors[std::size_t(d)][std::size_t(k)].rel_l2;
    if (!(e <= errors[std::size_t(worst)][std::size_t(k)].rel_l2)) worst = d;
  }
  return worst;
}

}  // namespace

Verification verify(const Reference& ref, const Result& result, double eps, bool from_eps,
                    double accuracy_floor) {
  Verification v;
  v.done = true;
  v.sampled = ref.sampled;
  v.n_checked = ref.n_checked;
  v.direct_seconds = ref.seconds;
  v.densities = ref.densities;
  v.has_field = ref.field;
  v.has_hessian = ref.hessian;
  const std::size_t n = result.potential.size() / std::size_t(ref.densities), m = ref.n_checked;
  for (int d = 0; d < ref.densities; ++d) {
    std::array<ErrorNorms, 3> e{};
    e[0] = error_norms(checked(result.potential, d, n, ref.which), row_of(ref.phi, d, m));
    if (ref.field) {
      e[1] = error_norms(checked(result.field_x, d, n, ref.which),
                         checked(result.field_y, d, n, ref.which), row_of(ref.fx, d, m),
                         row_of(ref.fy, d, m));
    }
    if (ref.hessian) {
      e[2] = error_norms(checked(result.hessian_xx, d, n, ref.which),
                         checked(result.hessian_xy, d, n, ref.which), row_of(ref.hxx, d, m),
                         row_of(ref.hxy, d, m));
    }
    v.per_density.push_back(e);
  }
  auto take = [&](int k, double* rel_l2, double* max_abs, int* worst) {
    *worst = worst_density(v.per_density, k);
    *rel_l2 = v.per_density[std::size_t(*worst)][std::size_t(k)].rel_l2;
    *max_abs = v.per_density[std::size_t(*worst)][std::size_t(k)].max_abs;
  };
  take(0, &v.rel_l2, &v.max_abs, &v.worst);
  if (v.has_field) take(1, &v.field_rel_l2, &v.field_max_abs, &v.field_worst);
  if (v.has_hessian) take(2, &v.hessian_rel_l2, &v.hessian_max_abs, &v.hessian_worst);
  // The contract: the relative errors of every output are at most eps, or the accuracy floor of
  // the geometry when that is larger. With --terms there is no eps to meet.
  v.checked = from_eps;
  v.tolerance = from_eps ? std::max(eps, accuracy_floor) : INFINITY;
  const char* bound = accuracy_floor > eps ? "the accuracy floor of this geometry" : "eps";
  auto judge = [&](const char* what, double error, int worst) {
    if (!v.passed) return;
    const std::string which =
        v.densities > 1 ? format(" (density %d of %d)", worst, v.densities) : "";
    if (!std::isfinite(error)) {
      v.passed = false;
      v.failure = format("the %s's relative L2 error against direct summation%s is not finite",
                         what, which.c_str());
    } else if (error > v.tolerance) {
      v.passed = false;
      v.failure =
          format("the %s's relative L2 error against direct summation%s, %.3e, is above %s, %.3g",
                 what, which.c_str(), error, bound, v.tolerance);
    }
  };
  judge("potential", v.rel_l2, v.worst);
  if (v.has_field) judge("field", v.field_rel_l2, v.field_worst);
  if (v.has_hessian) judge("Hessian", v.hessian_rel_l2, v.hessian_worst);
  return v;
}

NonFinite count_non_finite(const Result& result) {
  NonFinite n;
  for (double v : result.potential) n.potential += !std::isfinite(v);
  for (const std::vector<double>* f : {&result.field_x, &result.field_y}) {
    for (double v : *f) n.field += !std::isfinite(v);
  }
  for (const auto* h : {&result.hessian_xx, &result.hessian_xy, &result.hessian_yy}) {
    for (double v : *h) n.hessian += !std::isfinite(v);
  }
  return n;
}

std::string NonFinite::text(const Result& result) const {
  return text(result.potential.size(), !result.field_x.empty(), !result.hessian_xx.empty());
}

std::string NonFinite::text(std::size_t values, bool with_field, bool with_hessian) const {
  std::vector<std::string> parts = {format("%zu of %zu potentials", potential, values)};
  if (with_field) parts.push_back(format("%zu of %zu field components", field, 2 * values));
  if (with_hessian) {
    parts.push_back(format("%zu of %zu Hessian components", hessian, 3 * values));
  }
  std::string out = parts[0];
  for (std::size_t k = 1; k < parts.size(); ++k) {
    out += (k + 1 == parts.size() ? " and " : ", ") + parts[k];
  }
  return out + " are not finite (inf or NaN)";
}

void check_memory(const std::string& what, double bytes) {
  const tuning::HostMemory m = tuning::host_memory();
  // The tighter of the machine's free memory and this process's address-space limit.
  std::size_t available = m.available;
  const char* which = "MemAvailable";
  if (m.address_space_left > 0 && (available == 0 || m.address_space_left < available)) {
    available = m.address_space_left;
    which = "under the address-space limit, ulimit -v";
  }
  if (available == 0 || bytes <= double(available)) return;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  throw RuntimeFailure(
      format("%s needs about %.2f GiB of memory; %.2f GiB are available (%s): "
             "refused before starting",
             what.c_str(), bytes / gib, double(available) / gib, which));
}

double MemoryEstimate::peak() const {
  return std::max({sort, choose, setup, evaluation});
}

MemoryEstimate evaluation_memory(const MemoryShape& m) {
  // Counts: S sources, T targets the tree holds apart from the sources (0 in self-evaluation),
  // R results (the caller's targets).
  const double S = double(m.sources), T = m.self ? 0.0 : double(m.targets), R = double(m.targets);
  // Per source: nd strengths, and with dipoles nd strengths more and their moments (2 nd); per
  // target nd x (1 potential, 2 field, 3 Hessian components) outputs.
  const Options& o = m.options;
  const double nd = double(std::max(o.densities, 1));
  const double strengths = o.dipoles ? 4 * nd : nd;
  const double outputs = nd * ((o.field ? 3 : 1) + (o.hessian ? 3 : 0));
  // A tree and its plan: per box its level entry (key, 4 ranges, parent, children: 48 bytes)
  // and X-list start (8); per leaf its BoxRef, near list (4 starts and about 5 merged ranges of
  // 16 bytes) and W-list start. Vectors grown by push_back keep up to twice their size: counted
  // twice. Not grown so: each box's start of its M2L pairs (8). Per M2L pair 16 bytes: its
  // source and offset (5), and the (target, source) pairs the plan was gathered from (8, grown by
  // push_back), whose heap the allocator keeps for the evaluation -- the measured peak falls in
  // the evaluation, on that heap, where this estimate's largest phase is the CT choice
  // (results/dev-machine/far-m2l/memory_phases.txt); 16 keeps tests/memory_estimate.py's band,
  // 1.0-1.3 of the measured peak at 1e5, 1e6 and 3e6 points, with about 4 % to spare at each end.
  auto tree_plan = [](const TreeSize& t) {
    return 2 * (56 * t.boxes + 128 * t.leaves) + 8 * t.boxes + 16 * t.m2l_pairs;
  };
  // The Morton sort of one point set of n: its keys (8), the records (key, index, x, y: 32) and
  // the sorted index, x, y (24); the records go when it ends, the keys with attach_points.
  const double sorted = 32 * (S + T);
  // Each near-field back end's host arrays: resident (set-up to the end) and the set-up's
  // transient layout.
  double resident = 0, layout = 0;
  // A device back end's evaluation (every branch but the last) also puts the far field's outputs
  // in caller order while the device works (EvaluationArrays::stage_far_field).
  bool device = true;
  // The far field's strengths in tree order: its own array, or (a resident back end, from a size
  // on) the device's gather copied back into pinned memory (ChargeIo::tree_on_host).
  bool tree_strengths_pinned = false;
  if (o.backend == "shared" || o.backend == "repetition-gpu") {
    tree_strengths_pinned = tuning::device_strengths_back(o, m.sources);
    // pinned charges (caller order, and tree order) and outputs (ChargeIo)
    resident = (tree_strengths_pinned ? 2 : 1) * 8 * strengths * S + 8 * outputs * R;
    // shared's slot arrays (x, y: 16; caller index, tree target, leaf: 12) and union lists
    // (about 8 int32 a target); repetition-gpu uploads the tree's arrays directly.
    if (o.backend == "shared") layout = 28 * R + 32 * R;
  } else if (o.backend == "indexing") {
    // Its own caller-order coordinates, pinned coordinates, charges and outputs, and one chunk's
    // index arrays (a target index and about 9 t source indices a target, int32).
    resident = 16 * (S + T) + 8 * (2 * R + (2 + strengths) * S + outputs * R) + 4 * R * 10;
  } else if (o.backend == "repetition") {
    // + two 1 GiB record chunks
    resident = 8 * strengths * S + 8 * outputs * R + 2.0 * 1024 * 1024 * 1024;
  } else {  // cpu, and auto before it is chosen: charges and outputs in tree order, and the
    // slots of the pairs summed both ways (about 4 neighbours' targets a target; their Hessian
    // sums the field as well, asked for or not)
    const int mutual = tuning::cpu_mutual_sums(o, m.self);
    const double unasked_field = mutual > 0 && o.hessian && !o.field ? 16 * nd * R : 0.0;
    resident = 8 * strengths * S + 8 * outputs * R + 8 * 4.0 * mutual * R + unasked_field;
    device = false;
  }
  MemoryEstimate e;
  e.sort = m.self ? 64 * S : std::max(64 * S, 32 * S + 64 * T);
  // The choice keeps the best tree and plan so far while it builds the next: the largest such
  // pair in the order they were built (the two largest overall overstated it where the walk
  // turns: CT 16 built while CT 128, not CT 32, was the best). The best's gathered pairs (8 a
  // pair) were freed when its plan was made, and the next plan's gathering reuses that heap:
  // counting them as well put the estimate at 1.30-1.34 of the peak at 1e6 and 3e6 points where
  // CT 8 was built while CT 32 was the best (an AVX2 EPYC of two cores, 2026-11-29).
  double two = 0;
  const TreeSize* best = nullptr;
  for (const TreeSize& t : m.candidates) {
    two = std::max(two, tree_plan(t) + (best ? tree_plan(*best) - 8 * best->m2l_pairs : 0.0));
    if (!best || t.predicted < best->predicted) best = &t;
  }
  // keys + sorted + Crowding's depths, and 8 a point the measured peak held beyond them and the
  // two trees (about 4 at 3e6 uniform points, CT 16 built while CT 128 was the best:
  // tests/memory_estimate.py; results/dev-machine/issue23-h/experiments.md)
  e.choose = 8 * (S + T) + sorted + 1 * (S + T) + 8 * (S + T) + two;
  // Kept from set-up on: the tree's index and coordinates per point (24), the permutations
  // between caller and tree order (8 per target, and per source with separate targets:
  // EvaluationArrays::index_points), the tree and plan, the back end's.
  const double permutations = 8 * R + (m.self ? 0 : 8 * S);
  const double kept = 24 * (S + T) + permutations + tree_plan(m.evaluated) + resident;
  e.setup = kept + layout;
  // Per evaluation: the expansions (multipole and local, p + 1 complex per box and density padded
  // to whole cache lines), the tree-order charges and far-field outputs (and their caller-order
  // copy beside a device), the caller-order result and the permutations' scratch.
  // A candidate of more M2L pairs than the evaluated plan, built during the choice, left a
  // larger heap of gathered pairs (8 bytes a pair, grown by push_back: counted twice), which the
  // allocator keeps beside the evaluation: at 1e6 uniform points, CT 16 built while CT 32 was the
  // best and then evaluated, the estimate without it was 0.967 of the measured peak (on main at
  // 8b5ec0f and after it: tests/memory_estimate.py, results/dev-machine/issue23-k/memory.md).
  double most_pairs = m.evaluated.m2l_pairs;
  for (const TreeSize& t : m.candidates) most_pairs = std::max(most_pairs, t.m2l_pairs);
  const double kept_heap = 16 * (most_pairs - m.evaluated.m2l_pairs);
  const double terms = m.terms > 0 ? tuning::stored_expansion_terms(m.terms) : 0;
  e.evaluation = kept + kept_heap + 32.0 * terms * m.evaluated.boxes * nd +
                 (tree_strengths_pinned ? 0.0 : 8 * strengths * S) +
                 8 * outputs * R * (device ? 2 : 1) + 8 * outputs * R + permutations;
  return e;
}

}  // namespace mlfma2d::app
