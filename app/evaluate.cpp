#include "app/evaluate.hpp"

#include <omp.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <ostream>
#include <sstream>

#include "app/inputs.hpp"
#include "app/progress.hpp"
#include "app/ranks.hpp"
#include "mlfma2d/io.hpp"
#include "runtime/text.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::app {

namespace {

constexpr const char* kConvention =
    "phi(x_i) = sum_j q_j log|x_i - y_j|, E = -grad phi, no 1/(2 pi) factor, pairs with "
    "x_i == y_j (the self pair) skipped";

po::options_description evaluate_description() {
  const std::vector<OptionText> output = {
      {"output,o", "FILE",
       "write the potentials (and fields, Hessians) of every density to FILE, HDF5 or CSV by "
       "extension; default: none"},
      {"backend", "NAME|auto",
       "near-field back end (listed below), or auto: the fastest here, the GPU back end when a "
       "device is found, else cpu (with --model: the least near-field time the papers' fitted "
       "model predicts); default: auto"},
  };
  const std::vector<OptionText> verify = {
      {"verify", nullptr,
       "compare every output computed, of every density, with direct summation: at all "
       "targets if N_sources * N_targets <= 4e8, else at 1000 random targets; default: off"},
      {"verify-sample", "M",
       "verify at M random targets (0 = all); implies --verify; default: automatic (above)"},
  };
  return option_table("Evaluate", {input_options(),
                                   output,
                                   tree_options(),
                                   verify,
                                   run_options(),
                                   {{"version", "", "print the version and exit"}}});
}

// The index of the run with the median total (the lower median): a real run, so its phases add
// up, unlike per-phase medians.
std::size_t median_run(const std::vector<Timings>& runs) {
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t i, std::size_t j) { return runs[i].total < runs[j].total; });
  return order[(order.size() - 1) / 2];
}

}  // namespace

std::vector<OptionText> input_options() {
  return {
      {"input,i", "FILE",
       "sources and charges, HDF5 (.h5/.hdf5) or CSV (.csv); default: the bundled "
       "data set plate_n20000.h5 (a uniform square plate, 20,000 points)"},
      {"targets", "FILE",
       "separate targets (HDF5 /targets/x,y or /sources/x,y; CSV x,y); default: "
       "/targets of the input file if present, else the sources (self-evaluation)"},
      {"sources", "charges|dipoles|both",
       "the kinds of sources evaluated, of those the input holds (its nd densities of charges "
       "and/or dipoles, below); default: every kind it holds"},
  };
}

std::vector<OptionText> tree_options() {
  return {
      {"tree", "adaptive|uniform",
       "adaptive: a box is split while it holds more than CT points (leaves on any level; the "
       "cost follows N and eps, not the finest spacing); uniform: the papers' Wang-style tree, "
       "every leaf on level L; default: adaptive"},
      {"ct", "N|auto",
       "clustering threshold (leaf capacity): most points in a leaf box, >= 1; or auto: the "
       "tree's depth of least predicted time per evaluation (far + near field) by the cost "
       "model of this machine and back end (adaptive tree: CT; uniform tree: the level offset, "
       "CT 15); default: auto, or 15 when --levels is given"},
      {"levels", "+I|-I|auto",
       "move every leaf I levels after CT placed it (+1: finer, four times as many boxes; on "
       "the uniform tree the change of its height L), the papers' CT 15 unless --ct is given; "
       "or auto, the same as --ct auto; default: 0"},
      {"recalibrate", nullptr,
       "measure the cost model's constants anew (a fraction of a second) instead of reading "
       "them from the cache, $MLFMA2D_CACHE_DIR, $XDG_CACHE_HOME/mlfma2d or ~/.cache/mlfma2d; "
       "default: off"},
      {"model", "FILE",
       "coefficients from 'mlfma2d model fit': with --backend auto, the back end is the one "
       "of least near-field time these predict (the papers' model) on the tree of CT (15 "
       "when automatic); default: none"},
      {"eps", "X",
       "target relative L2 error vs direct summation, 0 < X < 1, sets the expansion terms p; "
       "default: 1e-6"},
      {"terms", "P", "expansion terms p, 1..60, instead of --eps; default: derived from --eps"},
      {"field", nullptr, "also compute the field E = -grad phi; default: off"},
      {"hessian", nullptr,
       "also compute the Hessian of phi: d2phi/dx2, d2phi/dxdy, d2phi/dy2; default: off"},
  };
}

std::vector<OptionText> run_options() {
  std::vector<OptionText> options = {
      {"repeat", "K",
       "evaluate K times on one tree, report the evaluation with the median total; default: 1"},
      {"threads", "T",
       "OpenMP threads, >= 1; default: the OpenMP default (OMP_NUM_THREADS or all cores)"},
      {"no-placement", nullptr,
       "leave an evaluation's threads where the system puts them; default: off, the OpenMP "
       "threads pinned to distinct cores and the host thread of shared or repetition-gpu to the "
       "core they leave, when the threads cover every core (not when OMP_PLACES, "
       "OMP_PROC_BIND, GOMP_CPU_AFFINITY or KMP_AFFINITY is set)"},
      {"seed", "S", "seed of the random verification sample; default: 1"},
      {"gpu-memory", "BYTES",
       "device-memory budget of GPU back ends (suffixes K, M, G, T = powers of 1024); default: "
       "0 = the free device memory"},
  };
  for (const OptionText& o : closing_options(
           true,
           "no progress lines or notes on stderr (warnings and errors are still printed); "
           "default: off")) {
    options.push_back(o);
  }
  return options;
}

EvaluateArgs evaluate_args(const po::variables_map& vm) {
  EvaluateArgs a;
  Options& o = a.options;
  if (auto v = value_of(vm, "input")) a.input = file_option("input", *v);
  if (auto v = value_of(vm, "targets")) a.targets = file_option("targets", *v);
  if (auto v = value_of(vm, "output")) a.output = file_option("output", *v);
  if (auto v = value_of(vm, "sources")) {
    a.sources = choice_option("sources", *v, {"charges", "dipoles", "both"});
  }
  if (auto v = value_of(vm, "backend")) {
    const auto names = near_field_backends();
    if (*v == "auto") {
      o.backend = "auto";
    } else if (std::find(names.begin(), names.end(), *v) == names.end()) {
      throw InvalidInput("--backend: unknown back end '" + *v + "' (valid: " + join(names, ", ") +
                         ", auto)");
    } else {
      o.backend = *v;
    }
  }
  if (auto v = value_of(vm, "tree")) {
    if (*v != "adaptive" && *v != "uniform") bad_value("tree", *v, "adaptive or uniform");
    o.tree = *v;
  }
  // CT and the level offset: both automatic by default; an explicit --levels keeps the papers'
  // meaning (CT 15 unless --ct says otherwise); --levels auto is --ct auto.
  const std::string* ct = value_of(vm, "ct");
  const std::string* levels = value_of(vm, "levels");
  const bool ct_auto = ct && *ct == "auto", levels_auto = levels && *levels == "auto";
  if (ct && !ct_auto) {
    o.ct = static_cast<int>(integer_option("ct", *ct, 1, INT_MAX, "an integer >= 1, or auto"));
  }
  if (levels && !levels_auto) {
    o.level_offset =
        static_cast<int>(integer_option("levels", *levels, -kMaxLevels, kMaxLevels,
                                        "an integer level change such as +1, -2 or 0, at most " +
                                            std::to_string(kMaxLevels) + " in size, or auto"));
    if (ct_auto) {
      throw InvalidInput("--ct auto chooses the tree's depth, --levels " + *levels +
                         " fixes it: give one of them (--levels alone uses the papers' CT 15)");
    }
    if (!ct) o.ct = kPapersCapacity;
  }
  if (levels_auto && ct && !ct_auto) {
    throw InvalidInput("--levels auto chooses the tree's depth, --ct " + *ct +
                       " fixes it: give one of them");
  }
  o.recalibrate = switch_of(vm, "recalibrate");
  o.place_threads = !switch_of(vm, "no-placement");
  const std::string* eps = value_of(vm, "eps");
  const std::string* terms = value_of(vm, "terms");
  if (eps && terms) throw InvalidInput("--eps and --terms exclude each other: give one of them");
  if (eps) {
    o.eps = real_option("eps", *eps, "a number with 0 < eps < 1");
    if (!(o.eps > 0 && o.eps < 1)) bad_value("eps", *eps, "a number with 0 < eps < 1");
  }
  if (terms) {
    o.terms = static_cast<int>(integer_option(
        "terms", *terms, 1, kMaxTerms, "an integer in [1, " + std::to_string(kMaxTerms) + "]"));
  }
  o.field = switch_of(vm, "field");
  o.hessian = switch_of(vm, "hessian");
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
  if (auto v = value_of(vm, "report")) a.report = report_option(*v);
  if (auto v = value_of(vm, "gpu-memory")) o.gpu_memory = bytes_option("gpu-memory", *v);
  if (auto v = value_of(vm, "model")) {
    if (v->empty()) throw InvalidInput("--model: empty file name");
    if (o.backend != "auto") {
      throw InvalidInput("--model chooses the back end: it is for --backend auto, not --backend " +
                         o.backend);
    }
    a.model = *v;
  }
  a.quiet = switch_of(vm, "quiet");
  return a;
}

Result run_solver(const LoadedInput& in, const Options& options, int repeat,
                  const Progress& progress, const std::string& label, bool warn, std::ostream& err,
                  RunReport* report) {
  const PointSet& points = in.points;
  const std::size_t nt = in.tx().size();
  // The estimate counts what the evaluation adds to what is resident now (the points, the
  // program). Before the tree: the per-point arrays alone, a lower bound.
  const std::size_t resident_before = tuning::host_memory().resident;
  MemoryShape shape;
  shape.sources = points.x.size();
  shape.targets = nt;
  shape.self = in.self();
  shape.options = options;
  check_memory("evaluating " + std::to_string(points.x.size()) + " sources at " +
                   std::to_string(nt) + " targets",
               evaluation_memory(shape).peak());
  std::unique_ptr<Solver> solver;
  {
    const auto step = progress.step(label + "building tree and plan");
    solver = std::make_unique<Solver>(
        in.self() ? Solver(points.x, points.y, options)
                  : Solver(points.x, points.y, points.tx, points.ty, options));
  }
  if (warn) {
    for (const std::string& w : solver->warnings()) err << "warning: " << w << "\n";
  }
  const TreeStats& stats = solver->stats();
  // With the tree, its plan, the candidates of --ct auto and the back end known: the whole
  // estimate; what the evaluation still adds must fit.
  shape.options.backend = solver->auto_choice().backend;
  shape.terms = stats.terms;
  shape.evaluated = {double(stats.boxes), double(stats.leaf_boxes), double(stats.m2l_pairs)};
  for (const CapacityCandidate& c : solver->auto_choice().candidates) {
    // Boxes are not recorded per candidate: a quadtree of L leaves has about 4 L / 3 boxes.
    shape.candidates.push_back(
        {4.0 * double(c.leaf_boxes) / 3, double(c.leaf_boxes), double(c.m2l_pairs), c.total});
  }
  const double estimate = evaluation_memory(shape).peak();
  const std::size_t resident_now = tuning::host_memory().resident;
  const double added = resident_now > resident_before ? double(resident_now - resident_before) : 0;
  check_memory(format("evaluating on a tree of %zu boxes with p = %d", stats.boxes, stats.terms),
               std::max(0.0, estimate - added));
  std::vector<Timings> runs;
  Result result;
  for (int k = 1; k <= repeat; ++k) {
    const auto step = progress.step(
        label + (repeat > 1 ? format("evaluating %d/%d", k, repeat) : std::string("evaluating")));
    result = solver->evaluate(densities_of(points));
    runs.push_back(solver->timings());
  }
  RunReport& r = *report;
  r.memory_estimate = double(resident_before) + estimate;
  r.memory_peak = tuning::host_memory().peak_resident;
  r.input = in.input;
  r.targets_input = in.targets_input;
  // The options as run: what the Solver chose in place of "auto".
  const AutoChoice& chose = solver->auto_choice();
  r.options = options;
  r.options.backend = chose.backend;
  r.options.ct = chose.ct;
  r.options.level_offset = chose.level_offset;
  r.vectors_per_density = options.dipoles && points.vectors_per_density;
  const tuning::AutoSelection own = tuning::auto_selection(*solver);
  if (!r.auto_selection.done) {
    r.auto_selection = own;
  } else if (own.levels_auto) {  // the papers' model chose the back end, the cost model the depth
    tuning::AutoSelection& a = r.auto_selection;
    a.levels_auto = true;
    a.ct = own.ct;
    a.level_offset = own.level_offset;
    a.levels = own.levels;
    a.predicted_seconds = own.predicted_seconds;
    a.reason += "; " + chose.reason;
  }
  r.threads_used = options.threads > 0 ? options.threads : omp_get_max_threads();
  r.stats = stats;
  r.timings = runs[median_run(runs)];
  r.repeat = repeat;
  for (const Timings& t : runs) r.totals.push_back(t.total);
  r.warnings = solver->warnings();
  // Values that are not finite are no answer: said here, and a failed check at the end.
  const NonFinite bad = count_non_finite(result);
  if (bad.total() > 0) {
    r.warnings.push_back(bad.text(result));
    err << "warning: " << label << bad.text(result) << "\n";
  }
  return result;
}

namespace {

std::string evaluate_help() {
  std::ostringstream s;
  s << "mlfma2d " << version() << ": 2D Laplace (log-kernel) multilevel fast multipole method\n\n"
    << "Usage:\n"
    << usage_overview() << "  mlfma2d --help | --version\n\n"
    << "Kernel convention:\n  " << kConvention << ".\n"
    << "  Dipoles of strength d_j and orientation v_j add sum_j d_j v_j . (x_i - y_j) / "
       "|x_i - y_j|^2.\n"
    << "  Targets default to the sources (self-evaluation).\n\n"
    << evaluate_description() << "\n"
    << "Files (docs/files.md):\n"
    << "  input   HDF5: /sources/x, /sources/y (N), and charges /sources/q, (N) or (nd, N) for "
       "nd\n"
    << "          densities, and/or dipoles /sources/dipole_strength, (N) or (nd, N), with\n"
    << "          /sources/dipole_vector, (2, N) or (nd, 2, N); optional /targets/x, /targets/y.\n"
    << "          CSV: header \"x,y,q\" (or q0,q1,...; dipoles d,vx,vy or d0,d1,...,vx,vy or\n"
    << "          vx0,vy0,...), one source a line ('#' lines and blank lines ignored).\n"
    << "          A regular file (a link to one is followed); a FIFO or device is refused.\n"
    << "  output  HDF5: /targets/x, /targets/y, /potential, /field/x, /field/y, /hessian/xx,\n"
    << "          /hessian/xy, /hessian/yy, (M) or (nd, M), each with a description, and root\n"
    << "          attributes (every parameter, nd, the sources, the outputs, tree figures,\n"
    << "          timing_<phase> in seconds, version; integers stored as integers). CSV: the "
       "header\n"
    << "          \"x,y,potential[,field_x,field_y][,hessian_xx,hessian_xy,hessian_yy]\" (nd > "
       "1:\n"
    << "          potential0,...,field_x0,...) first, then one target a line "
       "(numpy.loadtxt(f,\n"
    << "          delimiter=\",\", skiprows=1) and pandas.read_csv(f) load it as it is); the "
       "attributes\n"
    << "          go to the JSON sidecar FILE.json. Written atomically: never written or "
       "changed on\n"
    << "          error, temporary files removed on Ctrl-C and SIGTERM. An existing output must "
       "be a\n"
    << "          regular file: a link, FIFO or device of that name is refused, not replaced.\n"
    << "          Without --output the values are not written; the report shows the first.\n"
    << wrap_text(std::string("Without --input the bundled ") + kBundledDataSet +
                     " is looked up in " + data_search_text() + ".",
                 kHelpWidth - 2, "  ")
    << "\n\n"
    << "Near-field back ends (--backend):\n";
  const auto unavailable = unavailable_backends(near_field_backends());
  for (const BackendInfo& b : near_field_backend_info()) {
    s << "  " << b.name << std::string(b.name.size() < 15 ? 15 - b.name.size() : 1, ' ')
      << (b.available ? "          " : "(not here) ") << b.summary << "\n";
  }
  for (const std::string& line : grouped_reasons(unavailable)) {
    s << wrap_text("Not here: " + line, kHelpWidth - 2, "  ") << "\n";
  }
  std::vector<std::string> keys[5];  // top level, timings, error, auto, distributed
  const char* sections[5] = {"", "timings", "error", "auto", "distributed"};
  for (const ReportField& f : report_fields()) {
    for (int i = 0; i < 5; ++i) {
      if ((f.use & kJson) && f.section == std::string(sections[i])) keys[i].push_back(f.key);
    }
  }
  s << "\n"
    << wrap_text(
           "Report (stdout): sizes, the sources (charges and/or dipoles, nd densities) and the "
           "outputs computed, tree, p, eps, back end, per-phase times, near-field pairs and "
           "pairs/s, device memory, warnings, and with --verify the errors of each output (of "
           "its worst density; per_density: of each). "
           "--report json prints one object with the keys " +
               join(keys[0], ", ") + ", timings (seconds: " + join(keys[1], ", ") +
               ") and, with --verify, error (" + join(keys[2], ", ") +
               "); with --backend auto or --levels auto also auto (" + join(keys[3], ", ") +
               "); under mpirun also distributed (" + join(keys[4], ", ") +
               ": the ranks' figures, per_rank every rank's). null means none: eps, "
               "error.tolerance and error.passed with --terms (no "
               "tolerance: not checked), coordinate_scale when the coordinates were not scaled.",
           kHelpWidth - 2)
    << "\n\n"
    << wrap_text(
           "Under mpirun (a build with MPI): mpirun -np K mlfma2d [evaluate] ... runs over "
           "K ranks: each reads its contiguous part of the HDF5 input (CSV: rank 0 reads and "
           "scatters), the distributed solver evaluates, rank 0 writes the one output (the "
           "same layout, with distributed_* attributes) and prints the report with every "
           "rank's figures; an error on any rank ends every rank with the same code "
           "(docs/distributed.md). One process (mpirun -np 1 too) runs as without mpirun.",
           kHelpWidth - 2)
    << "\n\nProgress (stderr): on a terminal every step as it starts; elsewhere the steps still\n"
    << "running after 1 s ($MLFMA2D_PROGRESS_AFTER seconds, if set), each with its time when\n"
    << "done; nothing with --quiet.\n\n"
    << "Exit codes:\n"
    << "  0  success\n"
    << "  1  unexpected internal error\n"
    << "  2  bad usage, option value or unavailable back end\n"
    << "  3  bad input file or data, or output not writable\n"
    << "  4  runtime failure (computation, device, CUDA, out of memory, or more memory needed "
       "than\n"
    << "     this machine has, refused before starting)\n"
    << "  5  a failed check: --verify measured a relative L2 error of the potential, the field\n"
    << "     or the Hessian of some density above eps (or above the accuracy floor of the\n"
    << "     geometry, when that is larger), or not finite (with --terms only when not finite:\n"
    << "     no tolerance); or values are not finite. The report and the output are written\n"
    << "     first.\n"
    << "Errors print one line \"mlfma2d: error: <message>\" on stderr.\n";
  return s.str();
}

}  // namespace

// A few values of density 0, for a run whose output goes nowhere; with the Hessian a target a
// line (the report's indent after the first).
std::string preview(const Result& r, int densities) {
  std::string out = densities > 1 ? format("density 0 of %d: ", densities) : "";
  const std::size_t m = r.potential.size() / std::size_t(densities);
  const char* next = r.hessian_xx.empty() ? ", " : "\n                ";
  for (std::size_t i = 0; i < std::min<std::size_t>(3, m); ++i) {
    out += format("%sphi[%zu] = %.10g", i ? next : "", i, r.potential[i]);
    if (!r.field_x.empty()) out += format(", E[%zu] = (%.6g, %.6g)", i, r.field_x[i], r.field_y[i]);
    if (!r.hessian_xx.empty()) {
      out += format(", H[%zu] = (%.6g, %.6g, %.6g)", i, r.hessian_xx[i], r.hessian_xy[i],
                    r.hessian_yy[i]);
    }
  }
  return out;
}

namespace {

int run_evaluate(const EvaluateArgs& a, std::ostream& out, std::ostream& err) {
  // Under mpirun with several ranks: the evaluation over the ranks (app/evaluate_ranks.cpp).
  if (program_ranks().many()) return run_evaluate_ranks(a, out, err);
  const Progress progress(err, a.quiet);
  // A GPU back end's device starts now, on a thread of its own, while the input is read (its
  // first use in a process: 0.19-0.26 s on the H100 host, the "device start" trace lines of
  // results/h100/wave2c/call{1,3,5,7}.log); main() waits for it before the program ends.
  start_device(a.options.backend);
  std::string why;
  if (a.options.backend != "auto" && !near_field_backend_available(a.options.backend, &why)) {
    throw BackendUnavailable("--backend " + a.options.backend + ": not available here" +
                             (why.empty() ? std::string() : ": " + why));
  }
  LoadedInput in = resolve_input(a.input, a.targets, a.quiet, err);
  if (!a.output.empty()) {
    check_not_an_input("output", a.output, in);
    check_writable(a.output);
  }
  read_input(&in, progress);
  select_sources(&in, a.sources);
  const PointSet& points = in.points;
  RunReport report;

  Options options = with_sources_of(points, a.options);
  if (!a.model.empty()) {
    const auto step = progress.step("choosing the back end by the papers' model");
    tuning::AutoRequest request;
    request.backend_auto = true;
    request.model_path = a.model;
    report.auto_selection = tuning::auto_select(points, options, request);
    options.backend = report.auto_selection.backend;
  }

  Result result = run_solver(in, options, a.repeat, progress, "", true, err, &report);
  const NonFinite bad = count_non_finite(result);
  const std::string bad_text = bad.total() > 0 ? bad.text(result) : "";
  if (a.verify) {
    const auto step = progress.step("verifying against direct summation");
    const Reference reference = direct_reference(in, options, a.verify_sample, a.seed);
    report.verification =
        verify(reference, result, options.eps, options.terms == 0, report.stats.accuracy_floor);
  }

  if (!a.output.empty()) {
    report.output = a.output;
    const auto step = progress.step("writing " + a.output);
    ResultFile file;
    file.potential = std::move(result.potential);
    file.field_x = std::move(result.field_x);
    file.field_y = std::move(result.field_y);
    file.hessian_xx = std::move(result.hessian_xx);
    file.hessian_xy = std::move(result.hessian_xy);
    file.hessian_yy = std::move(result.hessian_yy);
    file.densities = options.densities;
    // Moved, not copied (16 bytes a target): the points are not needed after this.
    const bool self = in.self();
    file.tx = std::move(self ? in.points.x : in.points.tx);
    file.ty = std::move(self ? in.points.y : in.points.ty);
    file.attributes = to_attributes(report);
    write_result(a.output, file);
  } else {
    report.preview = preview(result, options.densities);
  }

  print_report(out,
               a.report == ReportFormat::Json ? to_json(report).dump(2) + "\n" : to_text(report));
  // The checks that fail the run, after the report and the output are out.
  throw_failed_checks(bad_text, report.verification);
  return 0;
}

ParsedCommand parse(const po::variables_map& vm, const std::vector<std::string>&,
                    const std::vector<std::string>&) {
  if (vm.count("version")) {
    return print_command("version", std::string("mlfma2d ") + version() + "\n");
  }
  return command("evaluate", evaluate_args(vm), run_evaluate);
}

}  // namespace

CommandRow evaluate_command() {
  return {"evaluate",
          "evaluate",
          "  mlfma2d [evaluate] [options]      evaluate potentials (and fields) with the FMM\n",
          evaluate_description,
          evaluate_help,
          false,
          parse};
}

void throw_failed_checks(const std::string& bad_values, const Verification& verification) {
  std::vector<std::string> failed;
  if (!bad_values.empty()) failed.push_back(bad_values);
  if (!verification.passed) failed.push_back("--verify: " + verification.failure);
  if (!failed.empty()) throw CheckFailure(join(failed, "; "));
}

}  // namespace mlfma2d::app
