#include "app/solve.hpp"

#include <climits>
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/inputs.hpp"
#include "app/options.hpp"
#include "app/progress.hpp"
#include "mlfma2d/io.hpp"

namespace mlfma2d::app {

namespace {

po::options_description solve_description() {
  const std::vector<OptionText> problem = {
      {"input,i", "FILE", "contour file (HDF5, below); required"},
      {"potentials", "V0,V1,...",
       "potential of every conductor in volts, in conductor order; default: "
       "/conductors/potential of the input, else 0 V on the reference and 1 V on the others"},
      {"reference", "K",
       "reference (ground) conductor, 0-based; excluded from the capacitance matrix; default: 0"},
      {"charge", "Q", "one conductor only: its charge per unit length in C/m; default: 1e-9"},
      {"eps-r", "X",
       "relative permittivity of the medium, > 0; default: attribute eps_r of the input, else 1"},
  };
  const std::vector<OptionText> discretisation = {
      {"panels", "N",
       "total panels, >= the number of contour segments; default: max(4096, segments)"},
      {"panel-size", "H", "largest panel length in metres, instead of --panels"},
      {"grading", "Q",
       "panel grading exponent toward open ends and corners, 1..10 (1 = uniform); default: 3"},
  };
  const std::vector<OptionText> solver = {
      {"tol", "T", "GMRES relative residual ||b - A x|| / ||b||, 0 < T < 1; default: 1e-10"},
      {"restart", "M", "GMRES Krylov vectors per restart cycle; default: 50"},
      {"max-iterations", "K", "GMRES iterations per right-hand side at most; default: 5000"},
      {"preconditioner", "auto|block|diagonal|none",
       "overlapping blocks of neighbouring panels, the diagonal, none, or auto: block where "
       "panels are graded (open ends, corners), else none; default: auto"},
      {"block-size", "B", "panels per preconditioner block; default: 32"},
      {"block-overlap", "V",
       "panels solved with each block on either side (restricted additive Schwarz); default: 8"},
      {"method", "fmm|dense",
       "fmm: GMRES on FMM products; dense: the full matrix and an LU (at most 8000 panels); "
       "default: fmm"},
  };
  const std::vector<OptionText> fmm = {
      {"backend", "NAME|auto",
       "near-field back end of the FMM (mlfma2d --help lists them), or auto: the fastest "
       "available here (a GPU when there is one); default: auto"},
      {"eps", "X", "FMM accuracy, 0 < X < 1; default: tol / 100 (at most 1e-6, at least 1e-14)"},
      {"ct", "N|auto",
       "FMM leaf capacity, or auto: chosen by the library's cost model; default: auto"},
      {"levels", "+I|-I",
       "FMM leaves moved I levels finer (+) or coarser (-) after CT placed them (CT 15 unless "
       "--ct is given); default: 0"},
      {"threads", "T", "OpenMP threads; default: the OpenMP default"},
  };
  const std::vector<OptionText> outputs = {
      {"targets", "FILE",
       "points where the potential and field are reported (HDF5 /targets/x,y or /sources/x,y; "
       "CSV x,y), in metres; default: none"},
      {"output,o", "FILE", "solution file (HDF5, below); default: none"},
  };
  return option_table("Solve",
                      {problem, discretisation, solver, fmm, outputs,
                       closing_options(true, "no progress lines on stderr; default: off")});
}

std::vector<double> numbers_option(const std::string& option, const std::string& text) {
  std::vector<double> v;
  for (const std::string& item : list_option(option, text)) {
    v.push_back(real_option(option, item, "a comma-separated list of numbers"));
  }
  return v;
}

double positive_option(const std::string& option, const std::string& text) {
  const double v = real_option(option, text, "a number > 0");
  if (!(v > 0)) bad_value(option, text, "a number > 0");
  return v;
}

void hdf5_option(const std::string& option, const std::string& path) {
  (void)file_option(option, path);
  if (format_of(path) != FileFormat::Hdf5) {
    throw InvalidInput("--" + option + ": '" + path + "' is not HDF5: use .h5 or .hdf5");
  }
}

std::string format_number(double v, const char* fmt = "%.6g") {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, v);
  return buffer;
}

nlohmann::json to_json(const SolveArgs& a, const ElectrostaticSolution& s,
                       const std::vector<double>& tx, const std::vector<double>& ty,
                       const FieldAtTargets* field) {
  using nlohmann::json;
  const ElectrostaticOptions& o = a.options;
  const ElectrostaticTimings& t = s.timings;
  json j;
  j["input"] = a.input;
  if (!a.output.empty()) j["output"] = a.output;
  j["conductors"] = s.charge.size();
  j["reference"] = s.reference;
  j["eps_r"] = s.eps_r;
  j["capacitance"] = s.capacitance;  // F/m, rows and columns: capacitance_conductors
  j["capacitance_conductors"] = s.capacitance_conductors;
  j["charge"] = s.charge;          // C/m
  j["potentials"] = s.potentials;  // V
  j["offset"] = s.offset;          // V
  j["panels"] = s.panels.size();
  j["iterations"] = s.iterations;
  j["residual"] = s.residual;
  j["tol"] = o.tol;
  json solves = json::array();
  for (const SolveStats& st : s.solves) {
    solves.push_back({{"iterations", st.iterations},
                      {"residual", st.residual},
                      {"residual_history", st.history}});
  }
  j["solves"] = solves;
  j["method"] = o.method;
  j["preconditioner"] = s.preconditioner;
  j["block_size"] = o.block_size;
  j["block_overlap"] = o.block_overlap;
  j["grading"] = o.grading;
  j["fmm"] = {{"backend", s.fmm_backend},           {"eps", s.fmm_eps},
              {"terms", s.fmm_stats.terms},         {"tree", s.fmm_stats.tree},
              {"levels", s.fmm_stats.levels},       {"ct", s.fmm_stats.ct},
              {"level_offset", o.fmm.level_offset}, {"sources", s.fmm_stats.n_sources},
              {"targets", s.fmm_stats.n_targets}};
  j["timings"] = {{"discretise", t.discretise},
                  {"near", t.near},
                  {"fmm_setup", t.fmm_setup},
                  {"preconditioner", t.preconditioner},
                  {"solve", t.solve},
                  {"products", t.products},
                  {"product", t.product},
                  {"product_fmm", t.product_fmm},
                  {"product_near", t.product_near},
                  {"total", t.total}};
  if (field) {
    j["targets"] = {{"x", tx},
                    {"y", ty},
                    {"potential", field->potential},
                    {"field_x", field->field_x},
                    {"field_y", field->field_y}};
  }
  return j;
}

std::string to_text(const SolveArgs& a, const ElectrostaticSolution& s, const FieldAtTargets* field,
                    const std::vector<double>& tx, const std::vector<double>& ty) {
  const ElectrostaticOptions& o = a.options;
  const ElectrostaticTimings& t = s.timings;
  std::ostringstream r;
  r << "mlfma2d solve: " << a.input << "\n"
    << "  conductors " << s.charge.size() << ", reference " << s.reference << ", eps_r "
    << format_number(s.eps_r) << ", panels " << s.panels.size() << " (grading "
    << format_number(o.grading) << ")\n"
    << "  method " << o.method;
  if (o.method == "fmm") {
    r << ", preconditioner " << s.preconditioner;
    if (s.preconditioner == "block") {
      r << " (" << o.block_size << " panels + " << o.block_overlap << " either side)";
    }
    r << ", FMM " << s.fmm_backend << " eps " << format_number(s.fmm_eps)
      << " (p = " << s.fmm_stats.terms << ", " << s.fmm_stats.tree
      << " tree, L = " << s.fmm_stats.levels << ", " << s.fmm_stats.n_sources << " sources)";
  }
  r << "\n\n";
  if (!s.capacitance.empty()) {
    r << "Capacitance matrix (pF/m), reference conductor " << s.reference << " excluded:\n"
      << "          ";
    for (int k : s.capacitance_conductors) r << format_number(k, "%14.0f");
    r << "\n";
    for (std::size_t i = 0; i < s.capacitance.size(); ++i) {
      r << format_number(s.capacitance_conductors[i], "%10.0f");
      for (double c : s.capacitance[i]) r << format_number(c * 1e12, "%14.8g");
      r << "\n";
    }
    r << "\n";
  }
  r << "Conductors:        V (V)        Q (C/m)\n";
  for (std::size_t k = 0; k < s.charge.size(); ++k) {
    r << format_number(double(k), "%10.0f") << format_number(s.potentials[k], "%13.6g")
      << format_number(s.charge[k], "%15.6g") << "\n";
  }
  if (s.charge.size() == 1) {
    r << "  (one conductor: V with phi + Q/(2 pi eps) log|x| -> 0 far away)\n";
  } else {
    r << "  potential at infinity: " << format_number(s.offset) << " V\n";
  }
  r << "\nSolve: " << s.solves.size() << " right-hand side(s), " << s.iterations
    << " GMRES iterations (";
  for (std::size_t i = 0; i < s.solves.size(); ++i) r << (i ? ", " : "") << s.solves[i].iterations;
  r << "), residual " << format_number(s.residual, "%.3g") << " (tol "
    << format_number(o.tol, "%.3g") << ")\n"
    << "Times (s): discretise " << format_number(t.discretise, "%.3g") << ", near "
    << format_number(t.near, "%.3g") << ", FMM set-up " << format_number(t.fmm_setup, "%.3g")
    << ", preconditioner " << format_number(t.preconditioner, "%.3g") << ", solve "
    << format_number(t.solve, "%.3g") << ", total " << format_number(t.total, "%.3g") << "\n";
  if (t.products > 0) {
    r << "  " << t.products << " products, " << format_number(t.product, "%.3g") << " s each (FMM "
      << format_number(t.product_fmm, "%.3g") << ", near correction "
      << format_number(t.product_near, "%.3g") << ")\n";
  }
  if (field) {
    r << "\nTargets:         x (m)          y (m)        phi (V)       Ex (V/m)       Ey (V/m)\n";
    const std::size_t shown = std::min<std::size_t>(tx.size(), 20);
    for (std::size_t i = 0; i < shown; ++i) {
      r << format_number(tx[i], "%15.6g") << format_number(ty[i], "%15.6g")
        << format_number(field->potential[i], "%15.6g")
        << format_number(field->field_x[i], "%15.6g") << format_number(field->field_y[i], "%15.6g")
        << "\n";
    }
    if (shown < tx.size()) r << "  ... " << tx.size() - shown << " more (see --output)\n";
  }
  if (!a.output.empty()) r << "\nwrote " << a.output << "\n";
  return r.str();
}

SolveArgs solve_args(const po::variables_map& vm) {
  SolveArgs a;
  ElectrostaticOptions& o = a.options;
  const std::string* input = value_of(vm, "input");
  if (!input) throw InvalidInput("solve: --input is required (a contour file, .h5)");
  hdf5_option("input", *input);
  a.input = *input;
  if (auto v = value_of(vm, "targets")) {
    a.targets = file_option("targets", *v);
  }
  if (auto v = value_of(vm, "output")) {
    hdf5_option("output", *v);
    a.output = *v;
  }
  if (auto v = value_of(vm, "potentials")) {
    o.potentials = numbers_option("potentials", *v);
    a.potentials_given = true;
  }
  if (auto v = value_of(vm, "reference")) {
    o.reference = static_cast<int>(integer_option("reference", *v, 0, INT_MAX, "an integer >= 0"));
  }
  if (auto v = value_of(vm, "charge")) o.total_charge = real_option("charge", *v, "a number (C/m)");
  if (auto v = value_of(vm, "eps-r")) {
    o.eps_r = positive_option("eps-r", *v);
    a.eps_r_given = true;
  }
  const std::string* panels = value_of(vm, "panels");
  const std::string* size = value_of(vm, "panel-size");
  if (panels && size) throw InvalidInput("--panels and --panel-size exclude each other: give one");
  if (panels) {
    o.panels = static_cast<std::size_t>(
        integer_option("panels", *panels, 1, 100000000, "an integer in [1, 1e8]"));
  }
  if (size) o.panel_size = positive_option("panel-size", *size);
  if (auto v = value_of(vm, "grading")) {
    o.grading = real_option("grading", *v, "a number in [1, 10]");
    if (!(o.grading >= 1 && o.grading <= 10)) bad_value("grading", *v, "a number in [1, 10]");
  }
  if (auto v = value_of(vm, "tol")) {
    o.tol = real_option("tol", *v, "a number with 0 < T < 1");
    if (!(o.tol > 0 && o.tol < 1)) bad_value("tol", *v, "a number with 0 < T < 1");
  }
  if (auto v = value_of(vm, "restart")) {
    o.restart = static_cast<int>(integer_option("restart", *v, 1, 10000, "an integer in [1, 1e4]"));
  }
  if (auto v = value_of(vm, "max-iterations")) {
    o.max_iterations =
        static_cast<int>(integer_option("max-iterations", *v, 1, INT_MAX, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "preconditioner")) {
    if (*v != "auto" && *v != "block" && *v != "diagonal" && *v != "none") {
      bad_value("preconditioner", *v, "auto, block, diagonal or none");
    }
    o.preconditioner = *v;
  }
  if (auto v = value_of(vm, "block-size")) {
    o.block_size =
        static_cast<int>(integer_option("block-size", *v, 1, 4096, "an integer in [1, 4096]"));
  }
  if (auto v = value_of(vm, "block-overlap")) {
    o.block_overlap =
        static_cast<int>(integer_option("block-overlap", *v, 0, 4096, "an integer in [0, 4096]"));
  }
  if (auto v = value_of(vm, "method")) {
    if (*v != "fmm" && *v != "dense") bad_value("method", *v, "fmm or dense");
    o.method = *v;
  }
  if (auto v = value_of(vm, "backend")) o.fmm.backend = *v;  // the Solver names unknown ones
  if (auto v = value_of(vm, "eps")) {
    o.fmm.eps = real_option("eps", *v, "a number with 0 < X < 1");
    if (!(o.fmm.eps > 0 && o.fmm.eps < 1)) bad_value("eps", *v, "a number with 0 < X < 1");
  }
  if (auto v = value_of(vm, "ct"); v && *v != "auto") {
    o.fmm.ct = static_cast<int>(integer_option("ct", *v, 1, INT_MAX, "an integer >= 1 or auto"));
  }
  if (auto v = value_of(vm, "levels")) {
    o.fmm.level_offset = static_cast<int>(integer_option(
        "levels", *v, -kMaxLevels, kMaxLevels, "an integer level change such as +1, -2 or 0"));
  }
  if (auto v = value_of(vm, "threads")) {
    o.fmm.threads =
        static_cast<int>(integer_option("threads", *v, 1, 4096, "an integer in [1, 4096]"));
  }
  if (auto v = value_of(vm, "report")) a.json = report_option(*v) == ReportFormat::Json;
  a.quiet = switch_of(vm, "quiet");
  return a;
}

std::string solve_help() {
  return help_page(
      "mlfma2d solve: charges, fields and the capacitance matrix of 2D conductors\n\n"
      "Usage:\n  mlfma2d solve --input geom.h5 [--potentials V0,V1,...] [--reference K] "
      "[--eps-r X]\n                [--panels N | --panel-size H] [--tol T] [--backend NAME] "
      "[--targets FILE]\n                [--output sol.h5] [--report text|json]\n",
      "Conductors infinitely long along z, cross-sections given as contours (SI units: metres,\n"
      "volts, C/m^2, C/m, F/m), in a medium of permittivity eps = eps_r * 8.8541878128e-12 F/m.\n"
      "The surface charge density sigma on the contours gives\n"
      "    phi(x) = -1/(2 pi eps) integral sigma(y) log|x - y| ds(y) + c,   phi = V_k on "
      "conductor k.\n"
      "For K >= 2 conductors the total charge is zero (c = the potential at infinity) and the\n"
      "(K-1)x(K-1) capacitance matrix C per unit length relates the charges Q = integral sigma ds\n"
      "of the conductors other than the reference to their potentials: Q = C (V - V_ref). One\n"
      "conductor (K = 1) carries the charge --charge. A closed contour is a zero-thickness shell\n"
      "(sigma is both faces together). Panels: straight, graded toward open ends and corners; "
      "one\n"
      "density per panel, collocation at panel centres, analytic near integrals, the rest by the\n"
      "FMM; restarted GMRES. docs/solve.md has the method and the measured accuracy.\n",
      solve_description(),
      "Files:\n"
      "  input   HDF5: /contours/x, /contours/y (vertices, float64, m), /contours/offsets (int64,\n"
      "          first vertex of each contour, contours + 1 entries), /contours/closed (int, "
      "0/1),\n"
      "          /contours/conductor (int, 0-based conductor of each contour), optional\n"
      "          /conductors/potential (V, one per conductor), optional attribute eps_r on /.\n"
      "          mlfma2d generate --shape coax|eccentric-coax|two-wire|strip|microstrip|rectangle\n"
      "          writes one. Contours must not cross or touch (themselves or each other).\n"
      "  output  HDF5: /capacitance ((K-1)x(K-1), F/m), /charge (C/m), /conductors/potential "
      "(V),\n"
      "          /panels/x, /panels/y (centres, m), /panels/length (m), /panels/conductor,\n"
      "          /panels/sigma (C/m^2); with --targets /targets/x, /targets/y, /targets/potential\n"
      "          (V), /targets/field_x, /targets/field_y (V/m); root attributes (eps_r, "
      "reference,\n"
      "          iterations, residual, timings). Written atomically: nothing on error.\n\n"
      "Report: text (C in pF/m), or --report json, one object with the keys capacitance (F/m,\n"
      "K-1 rows), capacitance_conductors, charge (C/m), potentials (V), offset (V), panels,\n"
      "iterations, residual, tol, solves (iterations, residual, residual_history of each\n"
      "right-hand side), method, preconditioner, fmm (backend, eps, terms, tree, levels, ...),\n"
      "timings (seconds: discretise, near, fmm_setup, preconditioner, solve, products, product,\n"
      "product_fmm, product_near, total) and with --targets targets (x, y, potential, field_x,\n"
      "field_y).\n",
      "0 success, 2 bad usage or option value (reference out of range, wrong number of\n"
      "potentials, ...), 3 bad input file or data (malformed contours, crossing conductors) or\n"
      "output not writable, 4 runtime failure (GMRES did not converge, device), 1 internal "
      "error.");
}

int run_solve(const SolveArgs& a, std::ostream& out, std::ostream& err) {
  const Progress progress(err, a.quiet);
  start_device(a.options.fmm.backend);  // beside the input and the panels (run_evaluate says why)
  if (!a.output.empty()) {
    if (same_file(a.output, a.input) || (!a.targets.empty() && same_file(a.output, a.targets))) {
      throw InvalidInput("--output '" + a.output + "' is an input file");
    }
    check_writable(a.output);
  }
  ContourFile file;
  std::vector<double> tx, ty;
  {
    const auto step = progress.step("reading " + a.input);
    file = read_contours(a.input);
    if (!a.targets.empty()) read_targets(a.targets, &tx, &ty);
  }

  SolveArgs run = a;
  ElectrostaticOptions& o = run.options;
  if (!a.potentials_given) o.potentials = file.potentials;
  if (!a.eps_r_given && file.has_eps_r) o.eps_r = file.eps_r;
  std::unique_ptr<ElectrostaticSolver> solver;
  {
    const auto step = progress.step("discretising and building the operator");
    solver = std::make_unique<ElectrostaticSolver>(file.contours, o);
  }
  ElectrostaticSolution s;
  {
    const auto step = progress.step("solving");
    s = solver->solve();
  }
  FieldAtTargets field;
  if (!tx.empty()) {
    const auto step = progress.step("evaluating at " + std::to_string(tx.size()) + " targets");
    field = solver->evaluate(s, tx, ty);
  }
  const FieldAtTargets* f = tx.empty() ? nullptr : &field;
  if (!a.output.empty()) {
    const auto step = progress.step("writing " + a.output);
    write_solution(a.output, s, tx, ty, f);
  }
  if (a.json) {
    out << to_json(run, s, tx, ty, f).dump(2) << "\n";
  } else {
    out << to_text(run, s, f, tx, ty);
  }
  out.flush();
  if (!out) throw IoError("cannot write the report to standard output");
  return 0;
}

}  // namespace

namespace {

ParsedCommand parse(const po::variables_map& vm, const std::vector<std::string>&,
                    const std::vector<std::string>&) {
  return command("solve", solve_args(vm), run_solve);
}

}  // namespace

CommandRow solve_command() {
  return {"solve",
          "solve",
          "  mlfma2d solve --input geom.h5 [options]  charges, fields and capacitance matrix of\n"
          "                                    2D conductors (see mlfma2d solve --help)\n",
          solve_description,
          solve_help,
          false,
          parse};
}

}  // namespace mlfma2d::app
