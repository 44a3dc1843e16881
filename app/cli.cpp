#include "app/cli.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

#include "app/auto_select.hpp"
#include "app/common.hpp"
#include "app/compare.hpp"
#include "app/report.hpp"
#include "app/sweep.hpp"
#include "mlfma2d/io.hpp"

#ifndef MLFMA2D_DATA_DIR
#define MLFMA2D_DATA_DIR ""
#endif
#ifndef MLFMA2D_INSTALL_DATA_DIR
#define MLFMA2D_INSTALL_DATA_DIR ""
#endif

namespace mlfma2d::app {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* kConvention =
    "phi(x_i) = sum_j q_j log|x_i - y_j|, E = -grad phi, no 1/(2 pi) factor, pairs with "
    "x_i == y_j (the self pair) skipped";
constexpr int kHelpWidth = 100;

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

// ---- Strict value parsers: the whole text must be the number, so "15x", "1e-6 " or "" fail.

[[noreturn]] void bad_value(const std::string& option, const std::string& text,
                            const std::string& expected) {
  throw InvalidInput("--" + option + ": invalid value '" + text + "' (expected " + expected + ")");
}

bool parse_unsigned(const std::string& text, std::size_t start, unsigned long long* value) {
  if (start >= text.size()) return false;
  const char* first = text.data() + start;
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, *value);
  return ec == std::errc() && ptr == last;
}

bool parse_signed(const std::string& text, long long* value) {
  std::size_t start = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    start = 1;
  }
  unsigned long long magnitude = 0;
  if (!parse_unsigned(text, start, &magnitude)) return false;
  if (magnitude > static_cast<unsigned long long>(LLONG_MAX)) return false;
  *value = negative ? -static_cast<long long>(magnitude) : static_cast<long long>(magnitude);
  return true;
}

long long integer_option(const std::string& option, const std::string& text, long long lo,
                         long long hi, const std::string& expected) {
  long long value = 0;
  if (!parse_signed(text, &value) || value < lo || value > hi) bad_value(option, text, expected);
  return value;
}

std::uint64_t seed_option(const std::string& option, const std::string& text) {
  unsigned long long value = 0;
  const std::size_t start = (!text.empty() && text[0] == '+') ? 1 : 0;
  if (!parse_unsigned(text, start, &value)) {
    bad_value(option, text, "an integer in [0, 2^64)");
  }
  return value;
}

double real_option(const std::string& option, const std::string& text,
                   const std::string& expected) {
  // strtod skips leading blanks and accepts "nan"/"inf": refuse both.
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) {
    bad_value(option, text, expected);
  }
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) {
    bad_value(option, text, expected);
  }
  return value;
}

// Bytes, optionally with a binary suffix: 512, 8G, 8GiB, 1500M.
std::size_t bytes_option(const std::string& option, const std::string& text) {
  const std::string expected = "a byte count >= 0, optionally with K, M, G or T (powers of 1024)";
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  unsigned long long value = 0;
  if (digits == 0 || !parse_unsigned(text.substr(0, digits), 0, &value)) {
    bad_value(option, text, expected);
  }
  std::string suffix = text.substr(digits);
  int shift = 0;
  if (!suffix.empty()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    const std::string rest = suffix.substr(1);
    const std::string units = "KMGT";
    const auto at = units.find(unit);
    if (at == std::string::npos || !(rest.empty() || rest == "B" || rest == "iB")) {
      bad_value(option, text, expected);
    }
    shift = 10 * static_cast<int>(at + 1);
  }
  if (shift > 0 && value > (std::numeric_limits<unsigned long long>::max() >> shift)) {
    bad_value(option, text, expected);
  }
  value <<= shift;
  if (value > std::numeric_limits<std::size_t>::max()) bad_value(option, text, expected);
  return static_cast<std::size_t>(value);
}

void check_format(const std::string& option, const std::string& path) {
  if (path.empty()) throw InvalidInput("--" + option + ": empty file name");
  try {
    (void)format_of(path);
  } catch (const InvalidInput& e) {
    throw InvalidInput("--" + option + ": " + e.what());
  }
}

// ---- Option tables (shared by the parser and --help, so the help cannot drift).

// Options of every command that evaluates on one geometry (evaluate, compare), in two blocks
// around the command's own.
void add_input_options(po::options_description* d) {
  // clang-format off
  d->add_options()
    ("input,i", po::value<std::string>()->value_name("FILE"),
     "sources and charges, HDF5 (.h5/.hdf5) or CSV (.csv); default: the bundled data set "
     "plate_n20000.h5 (a uniform square plate, 20,000 points)")
    ("targets", po::value<std::string>()->value_name("FILE"),
     "separate targets (HDF5 /targets/x,y or /sources/x,y; CSV x,y); default: /targets of the "
     "input file if present, else the sources (self-evaluation)");
  // clang-format on
}

void add_tree_options(po::options_description* d) {
  // clang-format off
  d->add_options()
    ("ct", po::value<std::string>()->value_name("N"),
     "clustering threshold: most points in a last-level box, >= 1; default: 15")
    ("levels", po::value<std::string>()->value_name("+I|-I|auto"),
     "change the tree height by I after CT fixed it (+1: four times as many, smaller boxes), or "
     "auto: the fastest of -2..+2 (near + far field, timed once each); default: 0")
    ("model", po::value<std::string>()->value_name("FILE"),
     "coefficients from 'mlfma2d model fit' for --backend/--levels auto: predict the near-field "
     "times instead of timing every back end; default: none (time them)")
    ("eps", po::value<std::string>()->value_name("X"),
     "target relative L2 error vs direct summation, 0 < X < 1, sets the expansion terms p; "
     "default: 1e-6")
    ("terms", po::value<std::string>()->value_name("P"),
     "expansion terms p, 1..60, instead of --eps; default: derived from --eps")
    ("field", po::bool_switch(), "also compute the field E = -grad phi; default: off");
  // clang-format on
}

void add_run_options(po::options_description* d) {
  // clang-format off
  d->add_options()
    ("repeat", po::value<std::string>()->value_name("K"),
     "evaluate K times on one tree, report the evaluation with the median total; default: 1")
    ("threads", po::value<std::string>()->value_name("T"),
     "OpenMP threads, >= 1; default: the OpenMP default (OMP_NUM_THREADS or all cores)")
    ("seed", po::value<std::string>()->value_name("S"),
     "seed of the random verification sample; default: 1")
    ("report", po::value<std::string>()->value_name("text|json"),
     "report format on stdout; json prints one object; default: text")
    ("gpu-memory", po::value<std::string>()->value_name("BYTES"),
     "device-memory budget of GPU back ends (suffixes K, M, G, T = powers of 1024); "
     "default: 0 = the free device memory")
    ("quiet,q", po::bool_switch(),
     "no progress lines or notes on stderr (warnings and errors are still printed); default: off")
    ("help,h", "print this help and exit");
  // clang-format on
}

po::options_description evaluate_description() {
  po::options_description d("Evaluate options", kHelpWidth, kHelpWidth / 2);
  add_input_options(&d);
  // clang-format off
  d.add_options()
    ("output,o", po::value<std::string>()->value_name("FILE"),
     "write potentials (and fields) to FILE, HDF5 or CSV by extension; default: none")
    ("backend", po::value<std::string>()->value_name("NAME|auto"),
     "near-field back end (listed below), or auto: the fastest here for this geometry (timed "
     "once per back end, or predicted with --model); default: cpu");
  add_tree_options(&d);
  d.add_options()
    ("verify", po::bool_switch(),
     "compare with direct summation: at all targets if N_sources * N_targets <= 4e8, else at "
     "1000 random targets; default: off")
    ("verify-sample", po::value<std::string>()->value_name("M"),
     "verify at M random targets (0 = all); implies --verify; default: automatic (above)");
  add_run_options(&d);
  d.add_options()
    ("version", "print the version and exit");
  // clang-format on
  return d;
}

po::options_description compare_description() {
  po::options_description d("Compare options", kHelpWidth, kHelpWidth / 2);
  add_input_options(&d);
  // clang-format off
  d.add_options()
    ("output,o", po::value<std::string>()->value_name("FILE"),
     "write the table to FILE: CSV (.csv, one row per back end) or HDF5 (.h5, one dataset per "
     "column under /compare); default: none")
    ("backends", po::value<std::string>()->value_name("A,B,..."),
     "back ends to compare (cpu is always run: it is the reference); default: all known, those "
     "not available here skipped with the reason");
  add_tree_options(&d);
  d.add_options()
    ("verify-sample", po::value<std::string>()->value_name("M"),
     "direct summation at M random targets (0 = all); default: all if N_sources * N_targets "
     "<= 4e8, else 1000");
  add_run_options(&d);
  // clang-format on
  return d;
}

po::options_description sweep_description() {
  po::options_description d("Sweep options", kHelpWidth, kHelpWidth / 2);
  // clang-format off
  d.add_options()
    ("quick", po::bool_switch(), "the short variant (minutes, not hours); default: off")
    ("repeat", po::value<std::string>()->value_name("K"),
     "timed evaluations per run, the median reported; default: 20 (3 with --quick)")
    ("warmup", po::value<std::string>()->value_name("W"),
     "untimed evaluations before them; default: 1")
    ("backends", po::value<std::string>()->value_name("A,B,..."),
     "back ends to run; default: all known, those not available here skipped")
    ("output-dir", po::value<std::string>()->value_name("DIR"),
     "folder for the CSV, metadata JSON, gnuplot scripts and PNG plots (created); "
     "default: sweep-NAME (sweep-NAME-quick with --quick)")
    ("sizes", po::value<std::string>()->value_name("N1,N2,..."),
     "replace the sweep's list of N (collection, kernel; for tests and quick looks)")
    ("grid-levels", po::value<std::string>()->value_name("L1,L2,..."),
     "replace the levels sweep's list of L (N = 4^(L-1))")
    ("offsets", po::value<std::string>()->value_name("I1,I2,..."),
     "replace the levels sweep's level offsets i (default -3..3)")
    ("ct", po::value<std::string>()->value_name("N"), "clustering threshold; default: 15")
    ("fix-levels", po::value<std::string>()->value_name("L"),
     "the kernel sweep's fixed tree height; default: L fixed by CT for the largest N")
    ("shape", po::value<std::string>()->value_name("NAME"),
     "point-set shape (see mlfma2d generate --help); default: uniform (the papers' plate)")
    ("seed", po::value<std::string>()->value_name("S"), "seed of the point sets; default: 1")
    ("threads", po::value<std::string>()->value_name("T"),
     "OpenMP threads (the cpu back end, the GPU back ends' collection); default: OpenMP's")
    ("no-plots", po::bool_switch(), "write the CSV only, no plots; default: off")
    ("quiet,q", po::bool_switch(), "no progress on stderr; default: off")
    ("help,h", "print this help and exit");
  // clang-format on
  return d;
}

po::options_description model_description() {
  po::options_description d("Model fit options", kHelpWidth, kHelpWidth / 2);
  // clang-format off
  d.add_options()
    ("output,o", po::value<std::string>()->value_name("FILE"),
     "write the fitted coefficients (JSON) to FILE, for --model; default: none")
    ("plot-dir", po::value<std::string>()->value_name("DIR"),
     "write predicted-vs-measured plots (PNG, with their gnuplot scripts) to DIR; default: none")
    ("report", po::value<std::string>()->value_name("text|json"),
     "report format on stdout; default: text")
    ("quiet,q", po::bool_switch(), "no notes on stderr; default: off")
    ("help,h", "print this help and exit");
  // clang-format on
  return d;
}

po::options_description generate_description() {
  po::options_description d("Generate options", kHelpWidth, kHelpWidth / 2);
  // clang-format off
  d.add_options()
    ("shape", po::value<std::string>()->value_name("NAME"), "point-set shape (listed below); required")
    ("n", po::value<std::string>()->value_name("N"), "number of points, >= 1; required")
    ("seed", po::value<std::string>()->value_name("S"), "random seed; default: 1")
    ("output,o", po::value<std::string>()->value_name("FILE"),
     "point-set file, HDF5 (.h5/.hdf5) or CSV (.csv) by extension; required")
    ("quiet,q", po::bool_switch(), "print nothing on success; default: off")
    ("help,h", "print this help and exit");
  // clang-format on
  return d;
}

// Words that are not options are refused, unless `words` collects them (sweep NAME, model fit
// CSV...).
po::variables_map parse_options(const std::vector<std::string>& args,
                                const po::options_description& visible,
                                std::vector<std::string>* words = nullptr) {
  po::options_description all;
  all.add(visible);
  // Stray words are collected, not rejected by Boost, to name them in our own message.
  all.add_options()("stray-argument", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("stray-argument", -1);
  // No guessing: "--verify" must never silently mean "--verify-sample", nor "--out" "--output".
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).style(style).run(),
              vm);
  } catch (const po::error& e) {
    // Boost 1.74's what() loops forever when a token holds its own %placeholder% (found by
    // fuzz_options, e.g. --e%original_token%ps): with a '%' around, name the token ourselves.
    for (const std::string& a : args) {
      if (a.find('%') == std::string::npos) continue;
      const auto* named = dynamic_cast<const po::error_with_option_name*>(&e);
      throw InvalidInput((named ? "invalid option '" + named->get_option_name() + "'"
                                : std::string("invalid command line")) + " (see mlfma2d --help)");
    }
    throw InvalidInput(std::string(e.what()) + " (see mlfma2d --help)");
  }
  if (vm.count("stray-argument")) {
    const auto& stray = vm["stray-argument"].as<std::vector<std::string>>();
    if (words) {
      *words = stray;
    } else {
      throw InvalidInput("unexpected argument '" + stray.front() + "' (see mlfma2d --help)");
    }
  }
  return vm;
}

const std::string* value_of(const po::variables_map& vm, const char* name) {
  auto it = vm.find(name);
  return it == vm.end() ? nullptr : &it->second.as<std::string>();
}

bool switch_of(const po::variables_map& vm, const char* name) {
  auto it = vm.find(name);
  return it != vm.end() && it->second.as<bool>();
}

EvaluateArgs evaluate_args(const po::variables_map& vm) {
  EvaluateArgs a;
  Options& o = a.options;
  if (auto v = value_of(vm, "input")) {
    check_format("input", *v);
    a.input = *v;
  }
  if (auto v = value_of(vm, "targets")) {
    check_format("targets", *v);
    a.targets = *v;
  }
  if (auto v = value_of(vm, "output")) {
    check_format("output", *v);
    a.output = *v;
  }
  if (auto v = value_of(vm, "backend")) {
    const auto names = near_field_backends();
    if (*v == "auto") {
      a.backend_auto = true;
    } else if (std::find(names.begin(), names.end(), *v) == names.end()) {
      throw InvalidInput("--backend: unknown back end '" + *v + "' (valid: " + join(names, ", ") +
                         ", auto)");
    } else {
      o.backend = *v;
    }
  }
  if (auto v = value_of(vm, "ct")) {
    o.ct = static_cast<int>(integer_option("ct", *v, 1, INT_MAX, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "levels"); v && *v == "auto") {
    a.levels_auto = true;
  } else if (v) {
    o.level_offset =
        static_cast<int>(integer_option("levels", *v, -kMaxLevels, kMaxLevels,
                                        "an integer level change such as +1, -2 or 0, at most " +
                                            std::to_string(kMaxLevels) + " in size, or auto"));
  }
  const std::string* eps = value_of(vm, "eps");
  const std::string* terms = value_of(vm, "terms");
  if (eps && terms) throw InvalidInput("--eps and --terms exclude each other: give one of them");
  if (eps) {
    o.eps = real_option("eps", *eps, "a number with 0 < eps < 1");
    if (!(o.eps > 0 && o.eps < 1)) bad_value("eps", *eps, "a number with 0 < eps < 1");
    a.eps_given = true;
  }
  if (terms) {
    o.terms = static_cast<int>(integer_option(
        "terms", *terms, 1, kMaxTerms, "an integer in [1, " + std::to_string(kMaxTerms) + "]"));
    a.terms_given = true;
  }
  o.field = switch_of(vm, "field");
  a.verify = switch_of(vm, "verify");
  if (auto v = value_of(vm, "verify-sample")) {
    a.verify_sample = integer_option("verify-sample", *v, 0, LLONG_MAX, "an integer >= 0");
    a.verify = true;
  }
  if (auto v = value_of(vm, "repeat")) {
    a.repeat = static_cast<int>(integer_option("repeat", *v, 1, INT_MAX, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "threads")) {
    // Thousands of threads is a typo, not a request; OpenMP would only thrash.
    o.threads = static_cast<int>(integer_option("threads", *v, 1, 4096, "an integer in [1, 4096]"));
  }
  if (auto v = value_of(vm, "seed")) a.seed = seed_option("seed", *v);
  if (auto v = value_of(vm, "report")) {
    if (*v == "text") {
      a.report = ReportFormat::Text;
    } else if (*v == "json") {
      a.report = ReportFormat::Json;
    } else {
      bad_value("report", *v, "text or json");
    }
  }
  if (auto v = value_of(vm, "gpu-memory")) o.gpu_memory = bytes_option("gpu-memory", *v);
  if (auto v = value_of(vm, "model")) {
    if (v->empty()) throw InvalidInput("--model: empty file name");
    if (!a.backend_auto && !a.levels_auto) {
      throw InvalidInput("--model is for --backend auto or --levels auto; give one of them");
    }
    a.model = *v;
  }
  a.quiet = switch_of(vm, "quiet");
  return a;
}

GenerateArgs generate_args(const po::variables_map& vm) {
  GenerateArgs a;
  const auto shapes = point_set_shapes();
  const std::string shape_list = join(shapes, ", ");
  const std::string* shape = value_of(vm, "shape");
  if (!shape) throw InvalidInput("generate: --shape is required (shapes: " + shape_list + ")");
  if (std::find(shapes.begin(), shapes.end(), *shape) == shapes.end()) {
    throw InvalidInput("--shape: unknown shape '" + *shape + "' (valid: " + shape_list + ")");
  }
  a.shape = *shape;
  const std::string* n = value_of(vm, "n");
  if (!n) throw InvalidInput("generate: --n is required");
  a.n = static_cast<std::size_t>(integer_option("n", *n, 1, LLONG_MAX, "an integer >= 1"));
  if (auto v = value_of(vm, "seed")) a.seed = seed_option("seed", *v);
  const std::string* output = value_of(vm, "output");
  if (!output) throw InvalidInput("generate: --output is required");
  check_format("output", *output);
  a.output = *output;
  a.quiet = switch_of(vm, "quiet");
  return a;
}

// "a,b,c" into its items; an empty item is refused.
std::vector<std::string> list_option(const std::string& option, const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text + ",");
  while (std::getline(in, item, ',')) {
    if (item.empty()) bad_value(option, text, "a comma-separated list without empty items");
    items.push_back(item);
  }
  return items;
}

std::vector<std::string> backends_option(const std::string& option, const std::string& text) {
  const auto names = near_field_backends();
  std::vector<std::string> out;
  for (const std::string& b : list_option(option, text)) {
    if (std::find(names.begin(), names.end(), b) == names.end()) {
      throw InvalidInput("--" + option + ": unknown back end '" + b +
                         "' (valid: " + join(names, ", ") + ")");
    }
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  }
  return out;
}

CompareArgs compare_args(const po::variables_map& vm) {
  CompareArgs a;
  a.common = evaluate_args(vm);
  a.common.verify = true;  // compare always checks against direct summation
  if (auto v = value_of(vm, "backends")) a.backends = backends_option("backends", *v);
  return a;
}

SweepArgs sweep_args(const po::variables_map& vm, const std::vector<std::string>& words,
                     const std::vector<std::string>& argv) {
  SweepArgs a;
  const auto names = sweep_names();
  const std::string valid = join(names, ", ");
  if (words.empty()) throw InvalidInput("sweep: name the experiment (" + valid + ")");
  if (std::find(names.begin(), names.end(), words[0]) == names.end()) {
    throw InvalidInput("sweep: unknown experiment '" + words[0] + "' (valid: " + valid + ")");
  }
  if (words.size() > 1) {
    throw InvalidInput("unexpected argument '" + words[1] + "' (see mlfma2d sweep --help)");
  }
  a.name = words[0];
  a.quick = switch_of(vm, "quick");
  if (auto v = value_of(vm, "repeat")) {
    a.repeat = static_cast<int>(integer_option("repeat", *v, 1, 100000, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "warmup")) {
    a.warmup = static_cast<int>(integer_option("warmup", *v, 0, 1000, "an integer >= 0"));
  }
  if (auto v = value_of(vm, "backends")) a.backends = backends_option("backends", *v);
  if (auto v = value_of(vm, "output-dir")) {
    if (v->empty()) throw InvalidInput("--output-dir: empty folder name");
    a.output_dir = *v;
  }
  if (auto v = value_of(vm, "sizes")) {
    for (const std::string& item : list_option("sizes", *v)) {
      a.sizes.push_back(static_cast<std::size_t>(
          integer_option("sizes", item, 1, 1000000000, "a list of integers in [1, 1e9]")));
    }
  }
  if (auto v = value_of(vm, "grid-levels")) {
    for (const std::string& item : list_option("grid-levels", *v)) {
      a.grid_levels.push_back(static_cast<int>(
          integer_option("grid-levels", item, 2, 13, "a list of integers in [2, 13]")));
    }
  }
  if (auto v = value_of(vm, "offsets")) {
    for (const std::string& item : list_option("offsets", *v)) {
      a.offsets.push_back(static_cast<int>(
          integer_option("offsets", item, -kMaxLevels, kMaxLevels, "a list of integers")));
    }
  }
  if (auto v = value_of(vm, "ct")) {
    a.ct = static_cast<int>(integer_option("ct", *v, 1, INT_MAX, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "fix-levels")) {
    a.fixed_levels = static_cast<int>(integer_option(
        "fix-levels", *v, 2, kMaxLevels, "an integer in [2, " + std::to_string(kMaxLevels) + "]"));
  }
  if (auto v = value_of(vm, "shape")) {
    const auto shapes = point_set_shapes();
    if (std::find(shapes.begin(), shapes.end(), *v) == shapes.end()) {
      throw InvalidInput("--shape: unknown shape '" + *v + "' (valid: " + join(shapes, ", ") + ")");
    }
    a.shape = *v;
  }
  if (auto v = value_of(vm, "seed")) a.seed = seed_option("seed", *v);
  if (auto v = value_of(vm, "threads")) {
    a.threads = static_cast<int>(integer_option("threads", *v, 1, 4096, "an integer in [1, 4096]"));
  }
  a.no_plots = switch_of(vm, "no-plots");
  a.quiet = switch_of(vm, "quiet");
  a.command_line = "mlfma2d";
  for (const std::string& word : argv) a.command_line += " " + word;
  return a;
}

ModelFitArgs model_fit_args(const po::variables_map& vm, const std::vector<std::string>& words) {
  ModelFitArgs a;
  if (words.empty() || words[0] != "fit") {
    throw InvalidInput(
        "model: the only sub-command is 'fit': mlfma2d model fit SWEEP.csv... "
        "[--output coeffs.json]");
  }
  a.csv.assign(words.begin() + 1, words.end());
  if (a.csv.empty()) throw InvalidInput("model fit: name at least one sweep CSV file");
  if (auto v = value_of(vm, "output")) {
    if (v->empty()) throw InvalidInput("--output: empty file name");
    a.output = *v;
  }
  if (auto v = value_of(vm, "plot-dir")) {
    if (v->empty()) throw InvalidInput("--plot-dir: empty folder name");
    a.plot_dir = *v;
  }
  if (auto v = value_of(vm, "report")) {
    if (*v == "text") {
      a.report = ReportFormat::Text;
    } else if (*v == "json") {
      a.report = ReportFormat::Json;
    } else {
      bad_value("report", *v, "text or json");
    }
  }
  a.quiet = switch_of(vm, "quiet");
  return a;
}

// ---- The evaluate command.

int run_evaluate(const EvaluateArgs& a, std::ostream& out, std::ostream& err) {
  const Progress progress(err, !a.quiet && ::isatty(STDERR_FILENO));
  std::string why;
  if (!a.backend_auto && !near_field_backend_available(a.options.backend, &why)) {
    throw BackendUnavailable("--backend " + a.options.backend + ": not available here" +
                             (why.empty() ? std::string() : ": " + why));
  }
  LoadedInput in = resolve_input(a.input, a.targets, a.quiet, err);
  if (!a.output.empty()) {
    check_not_an_input("output", a.output, in);
    check_output_path(a.output);
  }
  read_input(&in, progress);
  const PointSet& points = in.points;
  RunReport report;
  report.input = in.input;
  report.targets_input = in.targets_input;

  Options options = a.options;
  if (a.backend_auto || a.levels_auto) {
    progress.stage("choosing the back end and/or level offset...");
    AutoRequest request;
    request.backend_auto = a.backend_auto;
    request.levels_auto = a.levels_auto;
    request.model_path = a.model;
    report.auto_selection = auto_select(points, options, request, progress.stream());
    options.backend = report.auto_selection.backend;
    options.level_offset = report.auto_selection.level_offset;
  }

  progress.stage("building tree and plan...");
  Solver solver = in.self() ? Solver(points.x, points.y, options)
                            : Solver(points.x, points.y, points.tx, points.ty, options);
  for (const std::string& w : solver.warnings()) err << "warning: " << w << "\n";

  // Keep every run's timings; report the run whose total is the median (a real run, so its
  // phases add up, unlike per-phase medians).
  std::vector<Timings> runs;
  Result result;
  for (int k = 1; k <= a.repeat; ++k) {
    progress.stage(a.repeat > 1
                       ? "evaluating " + std::to_string(k) + "/" + std::to_string(a.repeat) + "..."
                       : std::string("evaluating..."));
    result = solver.evaluate(points.q);
    runs.push_back(solver.timings());
  }

  report.options = options;
  report.threads_used = options.threads > 0 ? options.threads : omp_get_max_threads();
  report.stats = solver.stats();
  report.timings = runs[median_run(runs)];
  report.repeat = a.repeat;
  for (const Timings& t : runs) report.totals.push_back(t.total);
  report.warnings = solver.warnings();

  if (a.verify) {
    progress.stage("verifying against direct summation...");
    const Reference reference =
        direct_reference(in, options.field, a.verify_sample, a.seed, options.threads);
    report.verification = verify(reference, result);
  }

  if (!a.output.empty()) {
    report.output = a.output;
    progress.stage("writing " + a.output + "...");
    ResultFile file;
    file.potential = std::move(result.potential);
    file.field_x = std::move(result.field_x);
    file.field_y = std::move(result.field_y);
    file.tx = in.tx();
    file.ty = in.ty();
    file.attributes = to_attributes(report);
    write_result(a.output, file);
  }

  if (a.report == ReportFormat::Json) {
    out << to_json(report).dump(2) << "\n";
  } else {
    out << to_text(report);
  }
  out.flush();
  if (!out) throw IoError("cannot write the report to standard output");
  return 0;
}

int run_generate(const GenerateArgs& a, std::ostream& out) {
  check_output_path(a.output);
  const PointSet points = generate_points(a.shape, a.n, a.seed);
  write_points(a.output, points);
  if (!a.quiet) {
    out << "wrote " << points.x.size() << " points (" << a.shape << ", seed " << a.seed << ") to "
        << a.output << "\n";
  }
  return 0;
}

}  // namespace

ParsedCommand parse_command_line(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
  const std::vector<std::string> all_words = args;  // the command line, for a sweep's metadata
  ParsedCommand cmd;
  std::string name = "evaluate";
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    const std::vector<std::string> commands = {"evaluate", "generate", "compare", "sweep", "model"};
    if (std::find(commands.begin(), commands.end(), args[0]) == commands.end()) {
      throw InvalidInput("unknown command '" + args[0] +
                         "' (commands: evaluate, generate, compare, sweep, model fit; see "
                         "mlfma2d --help)");
    }
    name = args[0];
    args.erase(args.begin());
  }
  auto help = [&](const char* topic) {
    cmd.command = Command::Help;
    cmd.help_topic = topic;
    return cmd;
  };
  if (name == "compare") {
    const po::variables_map vm = parse_options(args, compare_description());
    if (vm.count("help")) return help("compare");
    cmd.command = Command::Compare;
    cmd.compare = compare_args(vm);
    return cmd;
  }
  if (name == "sweep") {
    std::vector<std::string> words;
    const po::variables_map vm = parse_options(args, sweep_description(), &words);
    if (vm.count("help")) return help("sweep");
    cmd.command = Command::Sweep;
    cmd.sweep = sweep_args(vm, words, all_words);
    return cmd;
  }
  if (name == "model") {
    std::vector<std::string> words;
    const po::variables_map vm = parse_options(args, model_description(), &words);
    if (vm.count("help")) return help("model");
    cmd.command = Command::ModelFit;
    cmd.model_fit = model_fit_args(vm, words);
    return cmd;
  }
  if (name == "generate") {
    const po::variables_map vm = parse_options(args, generate_description());
    if (vm.count("help")) {
      cmd.command = Command::Help;
      cmd.help_topic = "generate";
      return cmd;
    }
    cmd.command = Command::Generate;
    cmd.generate = generate_args(vm);
    return cmd;
  }
  const po::variables_map vm = parse_options(args, evaluate_description());
  if (vm.count("help")) {
    cmd.command = Command::Help;
    return cmd;
  }
  if (vm.count("version")) {
    cmd.command = Command::Version;
    return cmd;
  }
  cmd.command = Command::Evaluate;
  cmd.evaluate = evaluate_args(vm);
  return cmd;
}

std::string help_text(const std::string& topic) {
  std::ostringstream s;
  if (topic == "compare") {
    s << "mlfma2d compare: every near-field back end on one geometry, verified and timed\n\n"
      << "Usage:\n  mlfma2d compare [--input FILE] [--backends A,B] [--repeat K] "
         "[--output FILE.csv|.h5] [tree options]\n\n"
      << "One Solver per back end, built on the same points and options (the tree is "
         "deterministic,\nso all share the same tree); cpu always runs first: it is the "
         "reference and the baseline.\nDirect summation runs once and checks every back end. "
         "Back ends not available here are\nskipped with the reason.\n\n"
      << compare_description() << "\n"
      << compare_help_columns() << "\n"
      << "Exit codes: as mlfma2d --help; 4 also when a back end disagrees with cpu (rel L2 > "
         "1e-12).\n";
    return s.str();
  }
  if (topic == "sweep") {
    s << "mlfma2d sweep: re-run one of the papers' near-field experiments\n\n"
      << "Usage:\n  mlfma2d sweep NAME [--quick] [--repeat K] [--backends A,B] "
         "[--output-dir DIR]\n\n"
      << sweep_help_text() << "\n"
      << sweep_description() << "\n"
      << "Exit codes: as mlfma2d --help; 4 when a back end disagrees with cpu.\n";
    return s.str();
  }
  if (topic == "model") {
    s << "mlfma2d model fit: fit the papers' performance model to sweep data\n\n"
      << "Usage:\n  mlfma2d model fit SWEEP.csv [MORE.csv...] [--output coeffs.json] "
         "[--plot-dir DIR]\n\n"
      << model_help_text() << "\n"
      << model_description() << "\n"
      << "Exit codes: as mlfma2d --help (3: a CSV that cannot be read or is not a sweep's).\n";
    return s.str();
  }
  if (topic == "generate") {
    s << "mlfma2d generate: write a PEC point set (points with charges q uniform in [0, 1))\n\n"
      << "Usage:\n  mlfma2d generate --shape NAME --n N --output FILE [--seed S]\n\n"
      << generate_description() << "\nShapes:\n";
    const std::map<std::string, std::string> about = {
        {"uniform", "unit square plate, uniform random points (the papers' case)"},
        {"disk", "uniform random points in a disk"},
        {"lshape", "uniform random points in an L-shaped plate"},
        {"circle", "points on a circle (contour)"},
        {"ellipse", "points on an ellipse (contour)"},
        {"strips", "two parallel strips"},
        {"clusters", "Gaussian clusters"}};
    for (const std::string& shape : point_set_shapes()) {
      const auto it = about.find(shape);
      s << "  " << shape << std::string(shape.size() < 10 ? 10 - shape.size() : 1, ' ')
        << (it == about.end() ? "" : it->second) << "\n";
    }
    s << "\n"
      << "Exit codes: 0 success, 2 bad usage or option value, 3 output not writable, "
         "1 unexpected internal error.\n";
    return s.str();
  }
  s << "mlfma2d " << version() << ": 2D Laplace (log-kernel) multilevel fast multipole method\n\n"
    << "Usage:\n"
    << "  mlfma2d [evaluate] [options]      evaluate potentials (and fields) with the FMM\n"
    << "  mlfma2d generate --shape NAME --n N --output FILE [--seed S]\n"
    << "                                    write a PEC point set (see mlfma2d generate --help)\n"
    << "  mlfma2d compare [options]         every back end on one geometry: errors, phase times,\n"
    << "                                    speedups (see mlfma2d compare --help)\n"
    << "  mlfma2d sweep NAME [options]      re-run a paper's experiment: collection, kernel,\n"
    << "                                    levels (see mlfma2d sweep --help)\n"
    << "  mlfma2d model fit CSV... [options]  fit the papers' performance model to sweep data\n"
    << "  mlfma2d --help | --version\n\n"
    << "Kernel convention:\n  " << kConvention << ".\n"
    << "  Targets default to the sources (self-evaluation).\n\n"
    << evaluate_description() << "\n"
    << "Files:\n"
    << "  input   HDF5: /sources/x, /sources/y, /sources/q (equal lengths), optional "
       "/targets/x, /targets/y;\n"
    << "          CSV: header \"x,y,q\", one source a line ('#' lines and blank lines "
       "ignored).\n"
    << "  output  HDF5: /potential, /field/x, /field/y, root attributes (every parameter, tree "
       "figures,\n"
    << "          timing_<phase> in seconds, version); CSV: \"x,y,potential[,field_x,field_y]\" "
       "after\n"
    << "          \"# key = value\" lines. Written atomically: never written or changed on "
       "error.\n"
    << "  Without --input the bundled " << kBundledDataSet << " is looked up in $MLFMA2D_DATA_DIR, "
    << MLFMA2D_DATA_DIR << ",\n  " << MLFMA2D_INSTALL_DATA_DIR
    << " and ../share/mlfma2d/data beside the program.\n\n"
    << "Near-field back ends (--backend):\n";
  for (const std::string& name : near_field_backends()) {
    std::string why;
    const bool ok = near_field_backend_available(name, &why);
    s << "  " << name << std::string(name.size() < 12 ? 12 - name.size() : 1, ' ')
      << (ok ? "available" : "not available here" + (why.empty() ? "" : ": " + why)) << "\n";
  }
  s << "\nReport (stdout): sizes, tree (L, L fixed by CT, t, D, leaf boxes), p, eps, back end,\n"
    << "per-phase times, near-field pairs and pairs/s, device memory, and with --verify the\n"
    << "errors. --report json prints one object with the keys n_sources, n_targets, levels,\n"
    << "levels_ct, level_offset, t, D, terms, eps, backend, ct, leaf_boxes, near_pairs,\n"
    << "pairs_per_second, device_memory, repeat, warnings, timings (seconds: tree, plan, setup,\n"
    << "p2m, m2m, m2l, l2l, l2p, far, near_collect, near_transfer, near_kernel, near_return,\n"
    << "near, total) and, with --verify, error (rel_l2, max_abs, sampled, n_checked,\n"
    << "field_rel_l2 with --field); with --backend auto or --levels auto also auto (backend,\n"
    << "level_offset, levels, method, reason, candidates with their near, far and total "
       "seconds).\n\n"
    << "Exit codes:\n"
    << "  0  success\n"
    << "  1  unexpected internal error\n"
    << "  2  bad usage, option value or unavailable back end\n"
    << "  3  bad input file or data, or output not writable\n"
    << "  4  runtime failure (computation, device, CUDA, out of memory)\n"
    << "Errors print one line \"mlfma2d: error: <message>\" on stderr.\n";
  return s.str();
}

std::string find_bundled_data_set() {
  std::vector<fs::path> folders;
  if (const char* env = std::getenv("MLFMA2D_DATA_DIR"); env && *env) folders.emplace_back(env);
  if (*MLFMA2D_DATA_DIR) folders.emplace_back(MLFMA2D_DATA_DIR);
  if (*MLFMA2D_INSTALL_DATA_DIR) folders.emplace_back(MLFMA2D_INSTALL_DATA_DIR);
  std::error_code ec;
  // A relocated install (or a copy beside its libraries) finds its data next to the program.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) folders.push_back(exe.parent_path().parent_path() / "share" / "mlfma2d" / "data");
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

int run_command(const ParsedCommand& command, std::ostream& out, std::ostream& err) {
  switch (command.command) {
    case Command::Help:
      out << help_text(command.help_topic);
      return 0;
    case Command::Version:
      out << "mlfma2d " << version() << "\n";
      return 0;
    case Command::Generate:
      return run_generate(command.generate, out);
    case Command::Evaluate:
      return run_evaluate(command.evaluate, out, err);
    case Command::Compare:
      return run_compare(command.compare, out, err);
    case Command::Sweep:
      return run_sweep(command.sweep, out, err);
    case Command::ModelFit:
      return run_model_fit(command.model_fit, out, err);
  }
  return 1;
}

}  // namespace mlfma2d::app
