// `mlfma2d evaluate` over MPI ranks (app/ranks.hpp, docs/distributed.md "The program under
// mpirun"): each rank reads its part of the input (app/rank_io.*), the DistributedSolver
// evaluates, --verify sums directly over every rank's sources at a sample of the targets, rank 0
// writes the one output and prints the report with every rank's figures. Every step is collective
// over MPI_COMM_WORLD and its errors are agreed, so every rank ends with the same error.
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <ostream>

#include "app/evaluate.hpp"
#include "app/rank_io.hpp"
#include "app/ranks.hpp"
#include "mlfma2d/distributed.hpp"
#include "runtime/text.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::app {

namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;

void sum(std::vector<double>* v) {
  if (!v->empty())
    MPI_Allreduce(MPI_IN_PLACE, v->data(), int(v->size()), MPI_DOUBLE, MPI_SUM, kWorld);
}

double most(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, kWorld);
  return v;
}

// The Timings of the rank whose evaluation took longest, on every rank.
Timings slowest(const Timings& mine) {
  struct {
    double total;
    int rank;
  } in{mine.total, program_ranks().rank};
  MPI_Allreduce(MPI_IN_PLACE, &in, 1, MPI_DOUBLE_INT, MPI_MAXLOC, kWorld);
  std::vector<double> v;
  for_each_field(mine, [&](const auto&, const auto& x) { v.push_back(double(x)); });
  MPI_Bcast(v.data(), int(v.size()), MPI_DOUBLE, in.rank, kWorld);
  Timings t;
  std::size_t k = 0;
  for_each_field(t,
                 [&](const auto&, auto& x) { x = static_cast<std::decay_t<decltype(x)>>(v[k++]); });
  return t;
}

// The output arrays of `r` that `o` asks for (the potential first), nd x n each.
std::vector<std::vector<double>*> outputs(Result* r, const Options& o) {
  std::vector<std::vector<double>*> out = {&r->potential};
  if (o.field) out.insert(out.end(), {&r->field_x, &r->field_y});
  if (o.hessian) out.insert(out.end(), {&r->hessian_xx, &r->hessian_xy, &r->hessian_yy});
  return out;
}

// --verify over the ranks: the sample of every rank's targets (the one-process rule and seed),
// the direct sums of every rank's sources at it added up, the FMM's values at it gathered.
Verification verify_ranks(const RankInput& in, const Options& options, const Result& result,
                          long long sample_size, std::uint64_t seed, double accuracy_floor) {
  const std::size_t n_all = in.all_targets();
  const VerifySample sample = verify_sample(in.sources, n_all, sample_size, seed);
  const std::size_t m = sample.n_checked, nd = std::size_t(options.densities);
  // The sample's coordinates and FMM values, each from the rank holding the target.
  const PointRange part = in.target_part;
  const std::vector<double>& tx = in.self() ? in.in.points.x : in.in.points.tx;
  const std::vector<double>& ty = in.self() ? in.in.points.y : in.in.points.ty;
  std::vector<double> sx(m, 0.0), sy(m, 0.0);
  Result at;
  for (std::vector<double>* v : outputs(&at, options)) v->assign(nd * m, 0.0);
  const std::vector<std::vector<double>*> mine = outputs(const_cast<Result*>(&result), options);
  const std::vector<std::vector<double>*> gathered = outputs(&at, options);
  for (std::size_t k = 0; k < m; ++k) {
    const std::size_t i = sample.sampled ? sample.which[k] : k;
    if (i < part.first || i >= part.first + part.count) continue;
    const std::size_t j = i - part.first;
    sx[k] = tx[j];
    sy[k] = ty[j];
    for (std::size_t o = 0; o < mine.size(); ++o) {
      for (std::size_t d = 0; d < nd; ++d)
        (*gathered[o])[d * m + k] = (*mine[o])[d * part.count + j];
    }
  }
  sum(&sx);
  sum(&sy);
  for (std::vector<double>* v : gathered) sum(v);
  // This rank's sources at the whole sample, added over the ranks.
  Outputs out;
  Reference ref = empty_reference(sample, options, &out);
  const DirectOptions d = direct_options(options);
  const auto start = std::chrono::steady_clock::now();
  collectively(kWorld, [&] {
    if (!in.in.points.x.empty() && m > 0) {
      direct_sum(in.in.points.x, in.in.points.y, sx, sy, densities_of(in.in.points), d, {}, out);
    }
  });
  ref.seconds =
      most(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  for (std::vector<double>* v : {&ref.phi, &ref.fx, &ref.fy, &ref.hxx, &ref.hxy, &ref.hyy}) sum(v);
  return verify(ref, at, options.eps, options.terms == 0, accuracy_floor);
}

// The options of a run over the ranks: the input's densities and the kinds --sources keeps.
Options run_options(const EvaluateArgs& a, RankInput* in) {
  Options o = a.options;
  bool charges = false, dipoles = false;
  check_source_kinds(in->in.input, a.sources, in->charges, in->dipoles, &charges, &dipoles);
  PointSet& p = in->in.points;
  if (!charges) p.q = {};
  if (!dipoles) {
    p.dipole_strengths = {};
    p.dipole_vectors = {};
  }
  o.densities = in->densities;
  o.charges = charges;
  o.dipoles = dipoles;
  return o;
}

// What evaluate_ranks measured of each evaluation.
struct Run {
  Timings slowest;
  std::vector<DistributedFigures> ranks;  // rank 0 only
};

std::unique_ptr<DistributedSolver> make_solver(const RankInput& in, const Options& options,
                                               const Progress& progress) {
  const auto step = progress.step(
      format("building tree, partition and plan over %d ranks", program_ranks().size));
  const PointSet& p = in.in.points;
  if (in.self()) return std::make_unique<DistributedSolver>(kWorld, p.x, p.y, options);
  return std::make_unique<DistributedSolver>(kWorld, p.x, p.y, p.tx, p.ty, options);
}

// The report's figures of a run over the ranks (every rank fills it; rank 0 prints it).
void fill_report(const RankInput& in, const Options& options, const DistributedSolver& ds,
                 const std::vector<Run>& runs, RunReport* r) {
  std::size_t median = 0;  // the run whose slowest rank had the median total (the lower)
  {
    std::vector<std::size_t> order(runs.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
      return runs[i].slowest.total < runs[j].slowest.total;
    });
    median = order[(order.size() - 1) / 2];
  }
  r->input = in.in.input;
  r->targets_input = in.in.targets_input;
  const AutoChoice& chose = ds.auto_choice();
  r->options = options;
  r->options.backend = chose.backend;
  r->options.ct = chose.ct;
  r->options.level_offset = chose.level_offset;
  r->vectors_per_density = options.dipoles && in.vectors_per_density;
  r->auto_selection = tuning::auto_selection(chose, ds.stats().levels);
  r->threads_used = options.threads > 0 ? options.threads : omp_get_max_threads();
  r->stats = ds.stats();
  r->timings = runs[median].slowest;
  r->repeat = int(runs.size());
  for (const Run& run : runs) r->totals.push_back(run.slowest.total);
  r->warnings = ds.warnings();
  r->ranks = runs[median].ranks;
  double peak = double(tuning::host_memory().peak_resident);
  r->memory_peak = std::size_t(most(peak));
}

}  // namespace

int run_evaluate_ranks(const EvaluateArgs& a, std::ostream& out, std::ostream& err) {
  const bool first = program_ranks().rank == 0;
  const Progress progress(err, a.quiet || !first);
  if (!a.model.empty()) {
    throw InvalidInput(
        "--model: the papers' model chooses back ends of one process; under "
        "mpirun give --backend, or auto (the library's choice)");
  }
  start_device(a.options.backend);
  LoadedInput names;
  collectively(kWorld, [&] {
    std::string why;
    if (a.options.backend != "auto" && !near_field_backend_available(a.options.backend, &why)) {
      throw BackendUnavailable("--backend " + a.options.backend + ": not available here" +
                               (why.empty() ? std::string() : ": " + why));
    }
    names = resolve_input(a.input, a.targets, a.quiet || !first, err);
    if (first && !a.output.empty()) {
      check_not_an_input("output", a.output, names);
      check_writable(a.output);
    }
  });
  RankInput in = read_rank_input(names, progress);
  Options options;
  collectively(kWorld, [&] { options = run_options(a, &in); });
  std::unique_ptr<DistributedSolver> ds = make_solver(in, options, progress);
  for (const std::string& w : ds->warnings()) err << "warning: " << w << "\n";
  std::vector<Run> runs;
  Result result;
  for (int k = 1; k <= a.repeat; ++k) {
    const auto step = progress.step(a.repeat > 1 ? format("evaluating %d/%d", k, a.repeat)
                                                 : std::string("evaluating"));
    result = ds->evaluate(densities_of(in.in.points));
    runs.push_back({slowest(ds->timings()), ds->gather_figures(0)});
  }
  RunReport report;
  fill_report(in, options, *ds, runs, &report);
  // Values that are not finite, over every rank.
  NonFinite bad = count_non_finite(result);
  std::vector<double> counts = {double(bad.potential), double(bad.field), double(bad.hessian)};
  sum(&counts);
  bad = {std::size_t(counts[0]), std::size_t(counts[1]), std::size_t(counts[2])};
  const std::string bad_text = bad.total() > 0
                                   ? bad.text(std::size_t(options.densities) * in.all_targets(),
                                              options.field, options.hessian)
                                   : "";
  if (!bad_text.empty()) {
    report.warnings.push_back(bad_text);
    err << "warning: " << bad_text << "\n";
  }
  if (a.verify) {
    const auto step = progress.step("verifying against direct summation (over the ranks)");
    report.verification =
        verify_ranks(in, options, result, a.verify_sample, a.seed, report.stats.accuracy_floor);
  }
  if (!a.output.empty()) {
    report.output = a.output;
    const auto step = progress.step("writing " + a.output + " (rank 0, from every rank)");
    ResultShape shape;
    shape.targets = in.all_targets();
    shape.densities = options.densities;
    shape.field = options.field;
    shape.hessian = options.hessian;
    shape.coordinates = true;
    if (first) shape.attributes = to_attributes(report);
    write_rank_result(a.output, shape, in, result);
  } else {
    report.preview = preview(result, options.densities);
  }
  collectively(kWorld, [&] {
    print_report(out,
                 a.report == ReportFormat::Json ? to_json(report).dump(2) + "\n" : to_text(report));
  });
  throw_failed_checks(bad_text, report.verification);
  return 0;
}

}  // namespace mlfma2d::app
