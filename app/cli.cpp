#include "app/cli.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <unordered_set>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

#include "app/report.hpp"
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
// Direct summation at every target up to this many pairs; beyond it a sample (--verify).
constexpr double kVerifyAllPairs = 4e8;
constexpr std::size_t kVerifyDefaultSample = 1000;
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

po::options_description evaluate_description() {
  po::options_description d("Evaluate options", kHelpWidth, kHelpWidth / 2);
  // clang-format off
  d.add_options()
    ("input,i", po::value<std::string>()->value_name("FILE"),
     "sources and charges, HDF5 (.h5/.hdf5) or CSV (.csv); default: the bundled data set "
     "plate_n20000.h5 (a uniform square plate, 20,000 points)")
    ("targets", po::value<std::string>()->value_name("FILE"),
     "separate targets (HDF5 /targets/x,y or /sources/x,y; CSV x,y); default: /targets of the "
     "input file if present, else the sources (self-evaluation)")
    ("output,o", po::value<std::string>()->value_name("FILE"),
     "write potentials (and fields) to FILE, HDF5 or CSV by extension; default: none")
    ("backend", po::value<std::string>()->value_name("NAME"),
     "near-field back end (listed below); default: cpu")
    ("ct", po::value<std::string>()->value_name("N"),
     "clustering threshold: most points in a last-level box, >= 1; default: 15")
    ("levels", po::value<std::string>()->value_name("+I|-I"),
     "change the tree height by I after CT fixed it (+1: four times as many, smaller boxes); "
     "default: 0")
    ("eps", po::value<std::string>()->value_name("X"),
     "target relative L2 error vs direct summation, 0 < X < 1, sets the expansion terms p; "
     "default: 1e-6")
    ("terms", po::value<std::string>()->value_name("P"),
     "expansion terms p, 1..60, instead of --eps; default: derived from --eps")
    ("field", po::bool_switch(), "also compute the field E = -grad phi; default: off")
    ("verify", po::bool_switch(),
     "compare with direct summation: at all targets if N_sources * N_targets <= 4e8, else at "
     "1000 random targets; default: off")
    ("verify-sample", po::value<std::string>()->value_name("M"),
     "verify at M random targets (0 = all); implies --verify; default: automatic (above)")
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
    ("help,h", "print this help and exit")
    ("version", "print the version and exit");
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

po::variables_map parse_options(const std::vector<std::string>& args,
                                const po::options_description& visible) {
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
    throw InvalidInput(std::string(e.what()) + " (see mlfma2d --help)");
  }
  if (vm.count("stray-argument")) {
    const auto& stray = vm["stray-argument"].as<std::vector<std::string>>();
    throw InvalidInput("unexpected argument '" + stray.front() + "' (see mlfma2d --help)");
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
    if (std::find(names.begin(), names.end(), *v) == names.end()) {
      throw InvalidInput("--backend: unknown back end '" + *v + "' (valid: " + join(names, ", ") +
                         ")");
    }
    o.backend = *v;
  }
  if (auto v = value_of(vm, "ct")) {
    o.ct = static_cast<int>(integer_option("ct", *v, 1, INT_MAX, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "levels")) {
    o.level_offset =
        static_cast<int>(integer_option("levels", *v, -kMaxLevels, kMaxLevels,
                                        "an integer level change such as +1, -2 or 0, at most " +
                                            std::to_string(kMaxLevels) + " in size"));
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

// ---- Helpers of the commands (these touch files).

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;  // also catches hard and symbolic links
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

// Fail before a long computation rather than after it; write_result still has the last word.
void check_output_path(const std::string& path) {
  std::error_code ec;
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::is_directory(folder, ec)) {
    throw IoError("cannot write '" + path + "': folder '" + folder.string() + "' does not exist");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw IoError("cannot write '" + path + "': folder '" + folder.string() + "' is not writable");
  }
  if (fs::is_directory(path, ec)) throw IoError("cannot write '" + path + "': it is a folder");
}

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

std::vector<double> gather(const std::vector<double>& values, const std::vector<std::size_t>& at) {
  if (at.empty()) return values;
  std::vector<double> out(at.size());
  for (std::size_t i = 0; i < at.size(); ++i) out[i] = values[at[i]];
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Progress lines only for a person watching a terminal.
class Progress {
 public:
  Progress(std::ostream& err, bool enabled) : err_(err), enabled_(enabled) {}
  void stage(const std::string& text) const {
    if (enabled_) err_ << text << std::endl;
  }

 private:
  std::ostream& err_;
  bool enabled_;
};

int run_evaluate(const EvaluateArgs& a, std::ostream& out, std::ostream& err) {
  const Progress progress(err, !a.quiet && ::isatty(STDERR_FILENO));
  std::string why;
  if (!near_field_backend_available(a.options.backend, &why)) {
    throw BackendUnavailable("--backend " + a.options.backend + ": not available here" +
                             (why.empty() ? std::string() : ": " + why));
  }
  RunReport report;
  report.input = a.input;
  if (report.input.empty()) {
    report.input = find_bundled_data_set();
    if (!a.quiet) err << "no --input: using bundled data set " << report.input << "\n";
  }
  if (!a.output.empty()) {
    if (same_file(a.output, report.input)) {
      throw InvalidInput("--output: '" + a.output + "' is the input file; choose another name");
    }
    if (!a.targets.empty() && same_file(a.output, a.targets)) {
      throw InvalidInput("--output: '" + a.output + "' is the --targets file; choose another name");
    }
    check_output_path(a.output);
  }

  progress.stage("reading " + report.input + "...");
  PointSet points = read_points(report.input);
  if (!a.targets.empty()) {
    progress.stage("reading targets " + a.targets + "...");
    points.tx.clear();
    points.ty.clear();
    read_targets(a.targets, &points.tx, &points.ty);
    report.targets_input = a.targets;
  } else if (points.has_targets()) {
    report.targets_input = report.input + " (/targets)";
  }
  const bool self = !points.has_targets();
  const std::vector<double>& tx = self ? points.x : points.tx;
  const std::vector<double>& ty = self ? points.y : points.ty;

  progress.stage("building tree and plan...");
  Solver solver = self ? Solver(points.x, points.y, a.options)
                       : Solver(points.x, points.y, points.tx, points.ty, a.options);
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
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t i, std::size_t j) { return runs[i].total < runs[j].total; });

  report.options = a.options;
  report.threads_used = a.options.threads > 0 ? a.options.threads : omp_get_max_threads();
  report.stats = solver.stats();
  report.timings = runs[order[(order.size() - 1) / 2]];
  report.repeat = a.repeat;
  for (const Timings& t : runs) report.totals.push_back(t.total);
  report.warnings = solver.warnings();

  if (a.verify) {
    const std::size_t nt = tx.size();
    const double pairs = static_cast<double>(points.x.size()) * static_cast<double>(nt);
    std::size_t m = nt;
    if (a.verify_sample > 0) {
      m = std::min<std::size_t>(nt, static_cast<std::size_t>(a.verify_sample));
    } else if (a.verify_sample < 0 && pairs > kVerifyAllPairs) {
      m = std::min(nt, kVerifyDefaultSample);
    }
    Verification& v = report.verification;
    v.done = true;
    v.sampled = m < nt;
    v.n_checked = m;
    const std::vector<std::size_t> which =
        v.sampled ? sample_indices(nt, m, a.seed) : std::vector<std::size_t>();
    progress.stage("verifying against direct summation (" + std::to_string(m) + " targets)...");
    std::vector<double> phi, fx, fy;
    const auto start = std::chrono::steady_clock::now();
    direct_sum(points.x, points.y, points.q, tx, ty, which, &phi, a.options.field ? &fx : nullptr,
               a.options.field ? &fy : nullptr, a.options.threads);
    v.direct_seconds = seconds_since(start);
    const ErrorNorms e = error_norms(gather(result.potential, which), phi);
    v.rel_l2 = e.rel_l2;
    v.max_abs = e.max_abs;
    if (a.options.field) {
      const std::vector<double> ex = gather(result.field_x, which);
      const std::vector<double> ey = gather(result.field_y, which);
      double num = 0, den = 0, worst = 0;
      for (std::size_t i = 0; i < ex.size(); ++i) {
        const double dx = ex[i] - fx[i], dy = ey[i] - fy[i];
        num += dx * dx + dy * dy;
        den += fx[i] * fx[i] + fy[i] * fy[i];
        worst = std::max(worst, std::hypot(dx, dy));
      }
      v.has_field = true;
      v.field_rel_l2 = den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0.0);
      v.field_max_abs = worst;
    }
  }

  if (!a.output.empty()) {
    report.output = a.output;
    progress.stage("writing " + a.output + "...");
    ResultFile file;
    file.potential = std::move(result.potential);
    file.field_x = std::move(result.field_x);
    file.field_y = std::move(result.field_y);
    file.tx = tx;
    file.ty = ty;
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
  ParsedCommand cmd;
  std::string name = "evaluate";
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    if (args[0] != "evaluate" && args[0] != "generate") {
      throw InvalidInput("unknown command '" + args[0] +
                         "' (commands: evaluate, generate; see mlfma2d --help)");
    }
    name = args[0];
    args.erase(args.begin());
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
    << "field_rel_l2 with --field).\n\n"
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
  }
  return 1;
}

}  // namespace mlfma2d::app
