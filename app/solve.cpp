#include "app/solve.hpp"

#include <climits>
#include <cmath>
#include <memory>
#include <ostream>
#include <utility>
#include <vector>

#include "app/inputs.hpp"
#include "app/options.hpp"
#include "app/plots.hpp"
#include "app/progress.hpp"
#include "app/ranks.hpp"
#include "app/report.hpp"
#include "app/solve_plot.hpp"
#include "app/solve_report.hpp"
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
       "reference (ground) conductor, 0-based; excluded from the capacitance matrix; default: 0 "
       "(over a ground plane the plane is the reference)"},
      {"charge", "Q", "one conductor only: its charge per unit length in C/m; default: 1e-9"},
      {"eps-r", "X",
       "relative permittivity of the background (outside every dielectric region), > 0; "
       "default: attribute eps_r of the input, else 1"},
      {"ground-plane", "Y|none",
       "an infinite perfect ground plane y = Y (metres), metal below, the reference at 0 V; none: "
       "no plane; default: attribute ground_plane_y of the input, else none"},
  };
  const std::vector<OptionText> accuracy = {
      {"accuracy", "A",
       "relative accuracy wanted on C and the figures derived from it, 0 < A < 1: the mesh is "
       "refined (panels doubled) until the error estimate is below A; default: 1e-6, or none "
       "(one solve, no estimate) when --panels or --panel-size is given"},
      {"max-panels", "N",
       "refinement stops past N panels (the report then says the target was NOT met); "
       "default: 4000000"},
  };
  const std::vector<OptionText> discretisation = {
      {"panels", "N",
       "total panels, >= the number of contour segments: the mesh (with --accuracy: the first "
       "mesh of the refinement); default: by feature and proximity"},
      {"panel-size", "H", "largest panel length in metres, instead of --panels"},
      {"grading", "Q",
       "panel grading exponent toward open ends and corners, 1..10 (1 = uniform); default: 3"},
  };
  const std::vector<OptionText> solver = {
      {"tol", "T", "GMRES relative residual ||b - A x|| / ||b||, 0 < T < 1; default: 1e-10"},
      {"restart", "M", "GMRES Krylov vectors per restart cycle; default: 50"},
      {"max-iterations", "K", "GMRES iterations per right-hand side at most; default: 5000"},
      {"preconditioner", "auto|block|diagonal|none",
       "overlapping blocks of neighbouring panels, the diagonal, none, or auto (= block); "
       "default: auto"},
      {"block-size", "B", "panels per preconditioner block; default: 32"},
      {"block-overlap", "V",
       "panels solved with each block on either side (restricted additive Schwarz); default: 8"},
      {"no-batch", nullptr,
       "solve the capacitance matrix's right-hand sides one after the other; default: all in "
       "one block, GMRES in lockstep with one FMM evaluation of every column per step"},
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
      {"plot", "FILE.png",
       "the cross-section with the equipotentials over |E| (log colour scale), drawn by "
       "gnuplot; default: none"},
      {"rlgc", "FILE",
       "L and C in the HSPICE W-element RLGC format (R = G = 0), for a circuit simulator; "
       "default: none"},
  };
  return option_table("Solve",
                      {problem, accuracy, discretisation, solver, fmm, outputs,
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

void png_option(const std::string& option, const std::string& path) {
  const std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : "";
  if (ext != ".png" && ext != ".PNG") {
    throw InvalidInput("--" + option + ": '" + path + "' is not a PNG file name: use .png");
  }
}

// The defaults of the accuracy target: 1e-6 for the default mesh; none (one solve) on a mesh
// the user fixed, unless --accuracy asks for refinement from it.
constexpr double kDefaultAccuracy = 1e-6;

// --input and the files the solve writes.
void read_files(const po::variables_map& vm, SolveArgs* a) {
  const std::string* input = value_of(vm, "input");
  if (!input) throw InvalidInput("solve: --input is required (a contour file, .h5)");
  hdf5_option("input", *input);
  a->input = *input;
  if (auto v = value_of(vm, "targets")) {
    a->targets = file_option("targets", *v);
  }
  if (auto v = value_of(vm, "output")) {
    hdf5_option("output", *v);
    a->output = *v;
  }
  if (auto v = value_of(vm, "plot")) {
    png_option("plot", *v);
    a->plot = *v;
  }
  if (auto v = value_of(vm, "rlgc")) {
    if (v->empty()) throw InvalidInput("--rlgc: empty file name");
    a->rlgc = *v;
  }
}

// The problem: the conductors' potentials or charge, the reference, the background, the ground
// plane.
void read_problem(const po::variables_map& vm, SolveArgs* a) {
  ElectrostaticOptions* o = &a->options;
  if (auto v = value_of(vm, "potentials")) {
    o->potentials = numbers_option("potentials", *v);
    a->potentials_given = true;
  }
  if (auto v = value_of(vm, "reference")) {
    o->reference = static_cast<int>(integer_option("reference", *v, 0, INT_MAX, "an integer >= 0"));
  }
  if (auto v = value_of(vm, "charge"))
    o->total_charge = real_option("charge", *v, "a number (C/m)");
  if (auto v = value_of(vm, "eps-r")) {
    o->eps_r = positive_option("eps-r", *v);
    a->eps_r_given = true;
  }
  if (auto v = value_of(vm, "ground-plane")) {
    a->ground_plane_given = true;
    o->ground_plane = *v != "none";
    if (o->ground_plane) {
      o->ground_plane_y = real_option("ground-plane", *v, "a height in metres, or none");
    }
  }
}

// The mesh: its size, the accuracy target that refines it, the grading.
void read_mesh(const po::variables_map& vm, SolveArgs* a) {
  ElectrostaticOptions* o = &a->options;
  const std::string* panels = value_of(vm, "panels");
  const std::string* size = value_of(vm, "panel-size");
  if (panels && size) throw InvalidInput("--panels and --panel-size exclude each other: give one");
  if (panels) {
    o->panels = static_cast<std::size_t>(
        integer_option("panels", *panels, 1, 100000000, "an integer in [1, 1e8]"));
    a->mesh_option = "--panels";
  }
  if (size) {
    o->panel_size = positive_option("panel-size", *size);
    a->mesh_option = "--panel-size";
  }
  if (auto v = value_of(vm, "accuracy")) {
    o->accuracy = real_option("accuracy", *v, "a relative accuracy with 0 < A < 1");
    if (!(o->accuracy > 0 && o->accuracy < 1)) {
      bad_value("accuracy", *v, "a relative accuracy with 0 < A < 1");
    }
  } else {
    o->accuracy = a->mesh_option.empty() ? kDefaultAccuracy : 0;
  }
  if (auto v = value_of(vm, "max-panels")) {
    o->max_panels = count_option("max-panels", *v);
    if (o->panels > o->max_panels) {
      throw InvalidInput("--max-panels " + *v + " is less than --panels " + *panels);
    }
  }
  if (auto v = value_of(vm, "grading")) {
    o->grading = real_option("grading", *v, "a number in [1, 10]");
    if (!(o->grading >= 1 && o->grading <= 10)) bad_value("grading", *v, "a number in [1, 10]");
  }
}

// The linear solve: GMRES and its preconditioner, or the dense LU.
void read_solver(const po::variables_map& vm, ElectrostaticOptions* o) {
  if (auto v = value_of(vm, "tol")) {
    o->tol = real_option("tol", *v, "a number with 0 < T < 1");
    if (!(o->tol > 0 && o->tol < 1)) bad_value("tol", *v, "a number with 0 < T < 1");
  }
  if (auto v = value_of(vm, "restart")) {
    o->restart =
        static_cast<int>(integer_option("restart", *v, 1, 10000, "an integer in [1, 1e4]"));
  }
  if (auto v = value_of(vm, "max-iterations")) {
    o->max_iterations =
        static_cast<int>(integer_option("max-iterations", *v, 1, INT_MAX, "an integer >= 1"));
  }
  if (auto v = value_of(vm, "preconditioner")) {
    if (*v != "auto" && *v != "block" && *v != "diagonal" && *v != "none") {
      bad_value("preconditioner", *v, "auto, block, diagonal or none");
    }
    o->preconditioner = *v;
  }
  if (auto v = value_of(vm, "block-size")) {
    o->block_size =
        static_cast<int>(integer_option("block-size", *v, 1, 4096, "an integer in [1, 4096]"));
  }
  if (auto v = value_of(vm, "block-overlap")) {
    o->block_overlap =
        static_cast<int>(integer_option("block-overlap", *v, 0, 4096, "an integer in [0, 4096]"));
  }
  if (auto v = value_of(vm, "method")) {
    if (*v != "fmm" && *v != "dense") bad_value("method", *v, "fmm or dense");
    o->method = *v;
  }
  o->batched = !switch_of(vm, "no-batch");
}

// The FMM behind GMRES's products.
void read_fmm(const po::variables_map& vm, Options* fmm) {
  if (auto v = value_of(vm, "backend")) fmm->backend = *v;  // the Solver names unknown ones
  if (auto v = value_of(vm, "eps")) {
    fmm->eps = real_option("eps", *v, "a number with 0 < X < 1");
    if (!(fmm->eps > 0 && fmm->eps < 1)) bad_value("eps", *v, "a number with 0 < X < 1");
  }
  if (auto v = value_of(vm, "ct"); v && *v != "auto") {
    fmm->ct = static_cast<int>(integer_option("ct", *v, 1, INT_MAX, "an integer >= 1 or auto"));
  }
  if (auto v = value_of(vm, "levels")) {
    fmm->level_offset = static_cast<int>(integer_option(
        "levels", *v, -kMaxLevels, kMaxLevels, "an integer level change such as +1, -2 or 0"));
  }
  if (auto v = value_of(vm, "threads")) {
    fmm->threads =
        static_cast<int>(integer_option("threads", *v, 1, 4096, "an integer in [1, 4096]"));
  }
}

SolveArgs solve_args(const po::variables_map& vm) {
  SolveArgs a;
  read_files(vm, &a);
  read_problem(vm, &a);
  read_mesh(vm, &a);
  read_solver(vm, &a.options);
  read_fmm(vm, &a.options.fmm);
  if (auto v = value_of(vm, "report")) a.json = report_option(*v) == ReportFormat::Json;
  a.quiet = switch_of(vm, "quiet");
  return a;
}

std::string solve_help() {
  return help_page(
      "mlfma2d solve: capacitance, inductance, Z0 and eps_eff of transmission-line "
      "cross-sections\n\n"
      "Usage:\n  mlfma2d solve --input geom.h5 [--accuracy A] [--ground-plane Y] [--eps-r X]\n"
      "                [--potentials V0,V1,...] [--reference K] [--panels N | --panel-size H]\n"
      "                [--targets FILE] [--output sol.h5] [--plot pic.png] [--rlgc line.rlgc]\n"
      "                [--report text|json]\n",
      "Conductors infinitely long along z, cross-sections given as contours (SI units: metres,\n"
      "volts, C/m^2, C/m, F/m, H/m), in dielectric regions of relative permittivity eps_r\n"
      "(the background --eps-r outside them), optionally over an infinite ground plane. The\n"
      "surface charge density sigma on the contours gives\n"
      "    phi(x) = -1/(2 pi eps0) integral sigma_t(y) log|x - y| ds(y) + c,   phi = V_k on "
      "conductor k.\n"
      "The Maxwell capacitance matrix C per unit length relates the charges of the signal\n"
      "conductors (all but the reference; over a ground plane all) to their potentials:\n"
      "Q = C (V - V_ref). From C and C0 (every eps_r = 1): L = mu0 eps0 C0^-1, and for one\n"
      "signal conductor Z0 = sqrt(L/C), eps_eff = C/C0 and the velocity; for several, the modes\n"
      "(even and odd for a symmetric pair). With --accuracy (default 1e-6 unless the mesh is\n"
      "given) the mesh is refined until the estimated relative error of C is below the target;\n"
      "the report says whether it was met. One conductor (K = 1, no plane) carries --charge.\n"
      "docs/solve.md has the method and the measured accuracy. Progress lines (iteration,\n"
      "residual, mesh) go to stderr about once a second. Under mpirun (a build with MPI) the\n"
      "solve runs over the ranks: each applies its part of the system's rows, rank 0 writes\n"
      "the files and the report (docs/distributed.md).\n",
      solve_description(),
      "Files:\n"
      "  input   HDF5: /contours/x, /contours/y (vertices, float64, m), /contours/offsets (int64,\n"
      "          first vertex of each contour, contours + 1 entries), /contours/closed (int, "
      "0/1),\n"
      "          /contours/conductor (int, 0-based conductor of each contour, -1: a dielectric\n"
      "          region's boundary), optional /contours/bulge (arcs), /contours/eps_r (regions),\n"
      "          /conductors/potential (V), attributes eps_r and ground_plane_y on /.\n"
      "          mlfma2d generate --shape NAME writes one (generate --help lists them).\n"
      "  output  HDF5, every dataset with description and units attributes: /conductors/\n"
      "          potential, charge, kind (signal or reference); /capacitance, "
      "/capacitance_vacuum,\n"
      "          /inductance, /capacitance_mutual (signal x signal), /capacitance_to_ground,\n"
      "          /capacitance_conductors; /modes/velocity, eps_eff, impedance, voltage; "
      "/panels/x,\n"
      "          y, x0, y0, x1, y1, length, contour, conductor, eps_left, eps_right, sigma,\n"
      "          sigma_total; /meshes/panels, change, iterations, seconds; /solves/iterations,\n"
      "          residual; with --targets /targets/x, y, potential, field_x, field_y. Root\n"
      "          attributes: method, preconditioner, eps_r, reference, ground_plane(_y), panels,\n"
      "          iterations, residual, accuracy_target (0: none), accuracy_estimate (NaN: not\n"
      "          estimated), accuracy_met, z0, eps_eff, velocity (one signal conductor),\n"
      "          timings; attribute_units gives their units. Written atomically: nothing on "
      "error.\n"
      "  rlgc    text, HSPICE W element RLGC file: '*' comments, N, then the lower triangles of\n"
      "          L0 (H/m), C0 (F/m, the Maxwell matrix), R0 and G0 (zeros).\n\n"
      "Report: text (pF/m, nH/m), or --report json, one object in SI units with the keys\n" +
          wrap_text(solve_json_keys(), 94) +
          ".\n"
          "The accuracy says \"met\" only when the solver's estimate was checked against the "
          "target.\n",
      "0 success (also when the accuracy target was not met: the report\n"
      "says so), 2 bad usage or option value (reference out of range, wrong number of\n"
      "potentials, gnuplot missing for --plot, ...), 3 bad input file or data (malformed\n"
      "contours, crossing conductors) or output not writable, 4 runtime failure (GMRES did not\n"
      "converge, device, gnuplot failed), 1 internal error.");
}

// Refused before the solve, so that nothing runs for an output that cannot be made.
void check_outputs(const SolveArgs& a) {
  std::vector<std::pair<const char*, const std::string*>> outputs = {
      {"output", &a.output}, {"plot", &a.plot}, {"rlgc", &a.rlgc}};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path->empty()) continue;
    if (same_file(*path, a.input) || (!a.targets.empty() && same_file(*path, a.targets))) {
      throw InvalidInput("--" + std::string(option) + " '" + *path + "' is an input file");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (!outputs[j].second->empty() && same_file(*path, *outputs[j].second)) {
        throw InvalidInput("--" + std::string(option) + " and --" + outputs[j].first +
                           " name the same file '" + *path + "'");
      }
    }
    check_writable(*path);
  }
  if (!a.plot.empty() && !gnuplot_available()) {
    throw InvalidInput("--plot: gnuplot not found (install gnuplot-nox)");
  }
}

int run_solve(const SolveArgs& a, std::ostream& out, std::ostream& err) {
  // Under mpirun every rank reads the (small) input and holds the panels; the solver applies its
  // part of the system's rows (app/ranks.hpp); rank 0 writes the files and prints the report,
  // every error every rank's.
  const bool first = program_ranks().rank == 0;
  const Progress progress(err, a.quiet || !first);
  start_device(a.options.fmm.backend);  // beside the input and the panels (run_evaluate says why)
  on_rank_zero([&] { check_outputs(a); });
  ContourFile file;
  SolveRun run;
  on_every_rank([&] {
    const auto step = progress.step("reading " + a.input);
    file = read_contours(a.input);
    if (!a.targets.empty()) read_targets(a.targets, &run.tx, &run.ty);
  });
  run.input = a.input;
  run.options = a.options;
  run.mesh_option = a.mesh_option;
  run.ranks = program_ranks().size;
  ElectrostaticOptions& o = run.options;
  if (!a.potentials_given) o.potentials = file.potentials;
  if (!a.eps_r_given && file.has_eps_r) o.eps_r = file.eps_r;
  if (!a.ground_plane_given) {
    o.ground_plane = file.ground_plane;
    o.ground_plane_y = file.ground_plane_y;
  }
  if (!a.rlgc.empty() && file.contours.conductors() < 2 && !o.ground_plane) {
    throw InvalidInput(
        "--rlgc: one conductor and no ground plane have no capacitance matrix "
        "(give two or more conductors, or --ground-plane Y)");
  }
  ThrottledLines lines(err, a.quiet || !first);
  o.progress = [&lines](const std::string& line) { lines(line); };
  std::unique_ptr<ElectrostaticSolver> solver;
  {
    const auto step = progress.step("discretising and building the operator");
    solver = make_electrostatic_solver(file.contours, o);
  }
  {
    const auto step = progress.step("solving");
    run.solution = solver->solve();
  }
  o.progress = nullptr;  // `lines` goes with this function; the report copies the options
  if (!run.tx.empty()) {
    const auto step = progress.step("evaluating at " + std::to_string(run.tx.size()) + " targets");
    run.field = solver->evaluate(run.solution, run.tx, run.ty);
  }
  // The picture first: gnuplot is the likeliest to fail, and then no file is written.
  if (!a.plot.empty()) {
    const auto step = progress.step("plotting " + a.plot);
    const ProbeGrid grid = probe_grid(run.solution);
    const FieldAtTargets f = solver->evaluate(run.solution, grid.x, grid.y);
    on_rank_zero([&] { plot_solution(a.plot, run.solution, grid, f, "mlfma2d solve " + a.input); });
    run.plot = a.plot;
  }
  if (!a.output.empty()) {
    const auto step = progress.step("writing " + a.output);
    on_rank_zero([&] {
      write_solution(a.output, run.solution, run.tx, run.ty, run.tx.empty() ? nullptr : &run.field);
    });
    run.output = a.output;
  }
  if (!a.rlgc.empty()) {
    on_rank_zero([&] { write_rlgc(a.rlgc, run.solution); });
    run.rlgc = a.rlgc;
  }
  if (!a.quiet && o.accuracy > 0 && !accuracy_met(run)) {
    err << "warning: accuracy " << accuracy_text(run) << "\n";
  }
  on_rank_zero(
      [&] { print_report(out, a.json ? solve_json(run).dump(2) + "\n" : solve_text(run)); });
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
