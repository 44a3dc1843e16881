// The evaluation driver. It reads as the method: build the tree and plan once; then per charge
// vector the near field (P2P) through the chosen back end beside the far field -- the upward pass
// (P2M, M2M), the interaction lists (M2L, P2L), the downward pass (L2L, L2P) and the W lists
// (M2P), one timed scope per operator (far_field(): FarField's passes, solver/far_field.*, which
// the distributed solver shares). How the work shares the machine with a GPU back end is
// solver/concurrency.*.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <sstream>

#include "mlfma2d/mlfma2d.hpp"
#include "nearfield/backend.hpp"
#include "runtime/placement.hpp"
#include "runtime/timer.hpp"
#include "runtime/trace.hpp"
#include "solver/concurrency.hpp"
#include "solver/cost_model.hpp"
#include "solver/far_field.hpp"
#include "solver/options.hpp"
#include "solver/points.hpp"
#include "solver/strengths.hpp"
#include "tree/figures.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

#ifndef MLFMA2D_VERSION
#define MLFMA2D_VERSION "0.0.0"
#endif

namespace mlfma2d {

const char* version() {
  return MLFMA2D_VERSION;
}

namespace {
// p(eps) = ceil(kTermsPerDigit * log10(1/eps)) (docs/math.md section 5), calibrated in
// docs/accuracy.md (results/accuracy.csv): the error falls about 10x per 2.5-2.7 terms. 2.6 left
// the field of a box-aligned grid with mixed-sign charges 2.2x above eps (tests/test_unusual.cpp,
// PointsExactlyOnBoxEdgesAndCorners); 3.0 keeps every measured case below eps.
constexpr double kTermsPerDigit = 3.0;
}  // namespace

int terms_for_eps(double eps) {
  if (!(eps > 0 && eps < 1)) {
    std::ostringstream m;
    m << "eps must be in (0, 1), got " << eps;
    throw InvalidInput(m.str());
  }
  // -log10(eps), not log10(1/eps): 1/eps overflows below 1e-308.
  const double p = std::ceil(kTermsPerDigit * -std::log10(eps));
  return p >= kMaxTerms ? kMaxTerms : std::max(4, int(p));
}

struct Solver::Impl {
  Options opt;
  int threads = 1;
  Placement placement;  // empty unless opt.place_threads (and the user placed nothing)
  // The caller's points as the tree sees them: their coordinates are released once the tree and
  // the back end hold theirs (the counts, merge and scale stay for every evaluation).
  PreparedPoints points;
  Tree tree;
  Plan plan;
  std::unique_ptr<FarField> far;
  std::unique_ptr<NearFieldBackend> near;
  TreeStats stats;
  Timings timings;
  AutoChoice choice;
  std::vector<std::string> warnings;
  EvaluationArrays arrays;  // one evaluation's strengths and far-field outputs

  // One geometry's set-up: the points sorted, the back end resolved, the tree and plan (given or
  // chosen), the back end set up on them -- while the device starts beside.
  Impl(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& tx,
       const std::vector<double>& ty, const Options& o)
      : opt(o) {
    validate_options(opt);
    threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
    if (opt.place_threads) placement = Placement::of_process();
    const int p = expansion_terms(opt);
    DeviceStart device(opt.backend,
                       ChargeShape(x.size(), tx.empty() ? x.size() : tx.size(), far_shape(opt)));
    // While the device starts, a core is busy in the CUDA driver: the tree and the choice run on
    // one thread fewer. A team of every core waits for its slowest member: the program's tree of
    // 1e7 points took 313-335 ms with 16 threads beside the start on the H100 host (16 cores),
    // 185-220 ms with 15 (results/h100/wave2b/call5-bench.log against call7-bench.log and
    // call9-bench.log, "1e7 uniform, twice").
    const int build = device.busy() && threads >= 4 ? threads - 1 : threads;
    TreePoints sorted = sort_points(x, y, tx, ty, build);
    {
      // "auto" is the fastest available here (asking needs the CUDA driver, which the device's
      // thread has been starting meanwhile).
      const TraceScope trace("back end resolved");
      choice.backend_chosen = opt.backend == "auto";
      choice.backend = choice.backend_chosen ? auto_backend(backend_needs(opt)) : opt.backend;
      std::string why;
      if (!backend_takes(choice.backend, backend_needs(opt), &why)) throw InvalidInput(why);
    }
    make_tree_and_plan(sorted, p, build);
    attach_points(&tree, std::move(sorted));
    note_inputs(p);
    timed(&timings.setup, [&] {
      if (backend_runs_on_device(choice.backend)) {
        const TraceScope trace("setup: waiting for the device");
        timed(&timings.device_wait, [&] { device.wait(); });
      }
      set_up_near_field(p);
    });
    fill_stats(p);
    // The tree keeps the coordinates in its order; the caller's order was for the set-up only
    // (copies when scaled or merged: 16 bytes a point, 32 with separate targets).
    points.release_coordinates();
  }

  // The caller's points as the tree sees them (checked, scaled if need be, coincident sources
  // merged), sorted once for every tree built on them.
  TreePoints sort_points(const std::vector<double>& x, const std::vector<double>& y,
                         const std::vector<double>& tx, const std::vector<double>& ty, int build) {
    TreePoints sorted;
    timed(&timings.tree, [&] {
      const TraceScope trace("tree: points checked, prepared, sorted");
      check_points(x, y, tx, ty);
      points = prepare_points(x, y, tx, ty, build);
      sorted = sort_tree_points(points.source_points(), points.target_points(), build);
      // Coincident sources become one (they sit in shared cells); then sorted again, with every
      // target kept.
      if (merge_coincident_sources(sorted, x, y, &points))
        sorted = sort_tree_points(points.source_points(), points.target_points(), build);
      if (points.scaled()) find_coincident_sources(x, y, tx, ty, &points);
    });
    return sorted;
  }

  // The leaf capacity: given (a level offset alone means the papers' CT 15), or chosen by the
  // cost model, which keeps its best candidate's tree and plan.
  void make_tree_and_plan(const TreePoints& sorted, int p, int build) {
    const TreeKind kind = parse_tree_kind(opt.tree);
    std::string warning;
    std::int64_t p2p_below = plan_options(p).p2p_below;
    choice.ct_chosen = opt.ct == kAutoCapacity && opt.level_offset == 0;
    if (choice.ct_chosen) {
      timed(&timings.choose, [&] {
        const TraceScope trace("choose: candidate trees and plans");
        CapacityChoice c =
            choose_capacity(sorted, kind, cost_model(p), p, far_shape(opt), plan_options(p), build);
        tree = std::move(c.tree);
        plan = std::move(c.plan);
        timings.plan = c.plan_seconds;  // within choose, not beside it
        warning = c.warning;
        choice.ct = c.ct;
        choice.level_offset = c.level_offset;
        choice.predicted_seconds = c.predicted.total;
        choice.candidates = std::move(c.candidates);
        p2p_below = c.p2p_below;
      });
      choice.choose_seconds = timings.choose;
    } else {
      choice.ct = opt.ct == kAutoCapacity ? kPapersCapacity : opt.ct;
      choice.level_offset = opt.level_offset;
      timed(&timings.tree,
            [&] { tree = grow_tree(sorted, choice.ct, opt.level_offset, kind, &warning, build); });
      timed(&timings.plan, [&] { plan = build_plan(tree, build, plan_options(p)); });
    }
    choice.reason = choice_reason(choice, kind);
    if (p2p_below != plan_options(p).p2p_below)
      choice.reason += "; W boxes and X leaves with up to " + std::to_string(p2p_below) +
                       " points on the other side summed in the near field (" +
                       std::to_string(plan_options(p).p2p_below) + " by default)";
    if (!warning.empty()) warnings.push_back(warning);
  }

  // What the caller should know of the inputs: all points at one place, eps below what doubles
  // attain.
  void note_inputs(int p) {
    if (all_at_one_point()) {
      warnings.push_back("all " + std::to_string(points.caller_sources) + " sources" +
                         (points.self ? "" : " and targets") +
                         " are identical: every pair is skipped, the potential (and field) is 0");
    }
    if (opt.terms == 0 && opt.eps < kAttainableError) {
      std::ostringstream m;
      m << "eps = " << opt.eps << " is below what double arithmetic attains (about "
        << kAttainableError << "): the result is as accurate as p = " << p << " terms make it";
      warnings.push_back(m.str());
    }
  }

  // The back end made and set up on the tree's near lists (taking the reserved buffers), the
  // far field's operators, and the permutations between the caller's order and the tree's.
  void set_up_near_field(int p) {
    const TraceScope trace("setup: back end made and set up");
    near = make_near_field_backend(choice.backend);
    far = std::make_unique<FarField>(tree, plan, p);
    arrays.index_points(tree, true, threads);
    const PointsRef targets = points.targets();
    NearFieldProblem problem =
        make_near_field_problem(tree, plan, points.src.x, points.src.y, targets.x, targets.y);
    set_problem_options(opt, threads, &problem);
    near->setup(problem);
  }

  // The cost model's constants for this machine, back end, threads, p and what an evaluation
  // carries: from the cache, else measured now (and cached).
  CostModel cost_model(int p) {
    CostModel model;
    cost_model_for(opt, choice.backend, threads, p,
                   places_threads(placement, threads, backend_runs_on_device(choice.backend)), true,
                   &model, &choice, &warnings);
    return model;
  }

  // Whether every source and target is the same point, so that every pair is skipped.
  bool all_at_one_point() const {
    const double x0 = points.src.x[0], y0 = points.src.y[0];
    auto same = [&](const PointsRef& p) {
      for (std::size_t i = 0; i < p.n; ++i) {
        if (p.x[i] != x0 || p.y[i] != y0) return false;
      }
      return true;
    };
    return same(points.src) && same(points.tgt);
  }

  void fill_stats(int p) {
    stats = tree_figures(tree, plan);
    // The caller's points, not the tree's (merged sources; self kept when merging split it).
    stats.n_sources = points.caller_sources;
    stats.n_targets = points.caller_targets;
    stats.self = points.self;
    stats.merged_sources = points.caller_sources - points.sources();
    stats.coordinate_scale = points.scale();
    stats.accuracy_floor = opt.terms == 0 && opt.eps < kAttainableError ? kAttainableError : 0;
    stats.far_flops = far_field_flops(tree, plan, p, far_shape(opt));
    stats.terms = p;
  }

  SourceKinds kinds() const { return far_shape(opt); }

  // One evaluation: the near field beside the far field, their sum in caller order.
  void evaluate(const Densities& in, const Outputs& out) {
    check_strengths(kinds(), points.caller_sources, in);
    check_outputs(opt.field, opt.hessian, out);
    Timings& t = timings;
    t.p2m = t.m2m = t.m2l = t.p2l = t.l2l = t.l2p = t.m2p = t.far = t.near = t.total = 0;
    t.strengths = t.near_collect = t.near_transfer = t.near_kernel = t.near_return = 0;
    const TraceScope trace("evaluation");
    const double t0 = now_seconds();
    // Beside a device back end's host thread the far field leaves it a core: no oversubscription
    // (and its threads wait on the device sleeping: blocking synchronisation). Every team of the
    // evaluation has this size (team_size says why).
    const bool device = near->runs_on_device();
    const int team = device ? std::max(1, threads - 1) : threads;
    // The tree's strengths: merged sources carry the sum of theirs, dipoles their moments
    // (beside a device, straight into its staging buffers: not copied there after).
    Strengths s;
    const StagingBuffers to = near->staging_buffers();  // none where the back end stages none
    timed(&t.strengths, [&] { s = arrays.caller_order(points, kinds(), in, team, to.mx, to.my); });

    // Near field (P2P): the back end writes the caller-order outputs; the far field is added
    // after.
    stats.threads_placed = places_threads(placement, threads, device);
    NearFieldTimings near_times;
    EvaluationThreads run(placement, team, stats.threads_placed, device,
                          backend_is_resident(choice.backend));
    // A resident back end's host copies by the team, before the near field starts and after it
    // ends, not on its host thread alone (NearFieldBackend::stage_in says why).
    bool staged = false;
    double staging = 0;
    if (device)
      timed(&staging, [&] {
        const TraceScope trace("near: strengths staged by the team");
        staged = near->stage_in(NearSources{s.q, s.mx, s.my}, team, true);
      });
    std::atomic<bool> near_done{false};
    run.start_near_field([&] {
      const struct Done {
        std::atomic<bool>* flag;
        ~Done() { flag->store(true, std::memory_order_release); }
      } done{&near_done};
      timed(&t.near, [&] {
        near->evaluate(
            NearSources{s.q, s.mx, s.my},
            NearOutputs{out.potential, opt.field ? out.field_x : nullptr,
                        opt.field ? out.field_y : nullptr, opt.hessian ? out.hessian_xx : nullptr,
                        opt.hessian ? out.hessian_xy : nullptr},
            &near_times);
      });
    });
    timed(&t.far, [&] {
      far_field(s, staged, team);
      // While a device's near field still runs, the far field's threads put their outputs in the
      // caller's order: what is left after the join is a stream (the permutation at 1e7 points
      // took 14 ms after it; docs/performance.md section 5).
      if (device && !near_done.load(std::memory_order_acquire)) {
        const TraceScope trace("far: staged in caller order");
        arrays.stage_far_field(tree, opt.densities, opt.field, opt.hessian, team);
      }
    });
    run.join();  // rethrows the back end's error, if any
    t.near_collect = near_times.collect + staging;
    t.near_transfer = near_times.transfer;
    t.near_kernel = near_times.kernel;
    t.near_return = near_times.ret;
    stats.device_memory = std::max(stats.device_memory, near_times.device_bytes);
    const double* near_results[5] = {};
    if (staged)
      for (int k = 0; k < 5; ++k) near_results[k] = near->staged_result(k);
    if (staged && !near_results[0])
      throw RuntimeFailure("internal error: the staged near field left no results");
    timed(&t.far, [&] {
      const TraceScope trace("far: added to the near field");
      arrays.add_far_field(tree, opt.densities, opt.field, opt.hessian, out,
                           staged ? near_results : nullptr, team);
    });
    timed(&t.strengths,
          [&] { finish_outputs(points, s, opt.densities, opt.field, opt.hessian, out, team); });
    t.total = now_seconds() - t0;
  }

  // The far field in tree order: the upward pass, the interaction lists (V by M2L, X by P2L), the
  // downward pass, the W lists by M2P (docs/math.md, sections 3 and 4). The strengths in tree
  // order: from a staged device evaluation (`staged`: its gather copied back), else gathered.
  // MLFMA2D_TRACE=1 shows each step's time, the reorderings' included (runtime/trace.hpp).
  void far_field(const Strengths& s, bool staged, int team) {
    FarSources src;
    FarOutputs out;
    {
      const TraceScope trace("far: strengths in tree order, outputs zeroed, expansions reset");
      out = arrays.far_outputs(tree, opt.densities, opt.field, opt.hessian, team);
      far->reset(opt.densities, team);
      if (staged) src = near->tree_order_strengths();
      if (!src.q && !src.mx) src = arrays.tree_order(tree, s, opt.densities, team);
    }
    {
      const TraceScope trace("far: upward pass");
      far->upward_pass(src, team, &timings);
    }
    const TraceScope trace("far: downward pass");
    far->downward_pass(src, out, team, &timings);
  }
};

Solver::Solver(const std::vector<double>& x, const std::vector<double>& y, const Options& options)
    : impl_(std::make_unique<Impl>(x, y, std::vector<double>{}, std::vector<double>{}, options)) {}

Solver::Solver(const std::vector<double>& x, const std::vector<double>& y,
               const std::vector<double>& tx, const std::vector<double>& ty,
               const Options& options) {
  if (tx.empty()) throw InvalidInput("no targets: at least one target point is needed");
  impl_ = std::make_unique<Impl>(x, y, tx, ty, options);
}

Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

Solver::Impl& Solver::impl() const {
  if (!impl_) throw InvalidInput("this Solver was moved from: it holds no geometry");
  return *impl_;
}

Result Solver::evaluate(const std::vector<double>& q) {
  Impl& s = impl();
  const std::size_t want = std::size_t(s.opt.densities) * s.points.caller_sources;
  if (q.size() != want)
    throw InvalidInput("expected " + std::to_string(want) + " charges" +
                       (s.opt.densities > 1 ? " (" + std::to_string(s.opt.densities) + " x " +
                                                  std::to_string(s.points.caller_sources) + ")"
                                            : std::string()) +
                       ", got " + std::to_string(q.size()));
  if (!s.opt.charges || s.opt.dipoles)
    throw InvalidInput("evaluate(q) takes charges alone: with dipoles, use evaluate(Densities)");
  Densities in;
  in.charges = q.data();
  return evaluate(in);
}

void Solver::evaluate(const double* q, double* potential, double* fx, double* fy) {
  Impl& s = impl();
  if (!q) throw InvalidInput("no charges given");
  if (!s.opt.charges || s.opt.dipoles)
    throw InvalidInput(
        "evaluate(q, ...) takes charges alone: with dipoles, use "
        "evaluate(Densities, Outputs)");
  if (s.opt.hessian)
    throw InvalidInput(
        "evaluate(q, potential, fx, fy) has no Hessian outputs: use "
        "evaluate(Densities, Outputs)");
  s.evaluate(Densities{q}, Outputs{potential, fx, fy});
}

Result Solver::evaluate(const Densities& in) {
  Impl& s = impl();
  Result r;
  const std::size_t all = std::size_t(s.opt.densities) * s.points.caller_targets;
  r.potential.resize(all);
  Outputs out;
  out.potential = r.potential.data();
  if (s.opt.field) {
    r.field_x.resize(all);
    r.field_y.resize(all);
    out.field_x = r.field_x.data();
    out.field_y = r.field_y.data();
  }
  if (s.opt.hessian) {
    r.hessian_xx.resize(all);
    r.hessian_xy.resize(all);
    r.hessian_yy.resize(all);
    out.hessian_xx = r.hessian_xx.data();
    out.hessian_xy = r.hessian_xy.data();
    out.hessian_yy = r.hessian_yy.data();
  }
  s.evaluate(in, out);
  return r;
}

void Solver::evaluate(const Densities& in, const Outputs& out) {
  impl().evaluate(in, out);
}

const Options& Solver::options() const {
  return impl().opt;
}
const TreeStats& Solver::stats() const {
  return impl().stats;
}
const Timings& Solver::timings() const {
  return impl().timings;
}
const std::vector<std::string>& Solver::warnings() const {
  return impl().warnings;
}
const AutoChoice& Solver::auto_choice() const {
  return impl().choice;
}

}  // namespace mlfma2d
