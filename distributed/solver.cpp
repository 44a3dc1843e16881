// The distributed solver's construction (docs/distributed.md): the points sorted in the global
// root box, the global shape grown (its CT given or chosen by the cost model over the ranks), the
// leaves priced and cut among the ranks, each rank's points moved to it, its ghost sources
// fetched, its locally essential tree and plan built, the multipole requests exchanged, and its
// near-field back end set up (a GPU back end on the GPU of its node-local rank).
#include <omp.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>

#include "distributed/impl.hpp"
#include "nearfield/device.hpp"
#include "runtime/timer.hpp"
#include "solver/options.hpp"
#include "solver/points.hpp"
#include "tree/figures.hpp"

namespace mlfma2d {
namespace {

// The inverse of a permutation given as arrived[i] = item: item -> i.
std::vector<std::int64_t> inverse(const Array<std::int64_t>& arrived) {
  std::vector<std::int64_t> of(arrived.size());
  for (std::size_t i = 0; i < arrived.size(); ++i) of[std::size_t(arrived[i])] = std::int64_t(i);
  return of;
}

// The options every rank must share (what the tree, the plan and an evaluation's arrays follow),
// as text.
std::string shared_options(const Options& o, bool self) {
  std::ostringstream m;
  m.precision(17);
  m << o.tree << "|" << o.ct << "|" << o.level_offset << "|" << o.eps << "|" << o.terms << "|"
    << o.backend << "|" << o.field << o.hessian << o.charges << o.dipoles << "|" << o.densities
    << "|" << self;
  return m.str();
}

// The prices of one candidate shape: the first cut (by points), this rank's leaves' work and
// costs under it, and the totals over the ranks.
struct Priced {
  Partition first;
  LeafWork work;
  std::vector<double> cost;
  Prediction total;
};

}  // namespace

DistributedSolver::Impl::Impl(MPI_Comm caller, const std::vector<double>& x,
                              const std::vector<double>& y, const std::vector<double>& tx,
                              const std::vector<double>& ty, bool self_evaluation, const Options& o)
    : opt(o), comm(caller) {
  const double t0 = now_seconds();
  Traffic t;
  collectively(comm, [&] {
    validate_options(opt);
    check_point_arrays(x, y, tx, ty);
  });
  agree_on_inputs(self_evaluation, &t);
  threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  if (opt.place_threads) placement = Placement::of_process();
  p = expansion_terms(opt);
  caller_sources = x.size();
  caller_targets = self ? x.size() : tx.size();
  collectively(comm, [&] { resolve_backend(); });
  LocalPoints pts;
  timed(&timings.tree, [&] {
    pts =
        sort_local_points(comm, PointsRef{x.data(), y.data(), x.size()},
                          PointsRef{tx.data(), ty.data(), self ? 0 : tx.size()}, self, threads, &t);
  });
  const CostModel model = partition_model(&t);
  int ct = 0, offset = 0;
  choose_capacity(pts, model, &t, &ct, &offset);
  GlobalShape shape;
  std::string warning;
  timed(&timings.tree, [&] {
    shape =
        grow_global_shape(comm, pts, ct, offset, parse_tree_kind(opt.tree), &warning, threads, &t);
  });
  if (!warning.empty()) warnings.push_back(warning);
  partition(pts, &shape, model, &t);
  fill_stats(shape, &t);
  timed(&timings.setup, [&] { collectively(comm, [&] { set_up_near_field(); }); });
  far = std::make_unique<FarField>(let.tree, let.plan, p);
  // The far field's outputs into own-target order; its strengths come in tree order already.
  arrays.index_points(let.tree, false, threads);
  choice.reason = choice_reason(choice, parse_tree_kind(opt.tree));
  fig.setup = now_seconds() - t0;
  fig.setup_sent = t.sent;
  fig.setup_received = t.received;
}

void DistributedSolver::Impl::agree_on_inputs(bool self_evaluation, Traffic* t) {
  self = self_evaluation;
  // The same constructor and options on every rank: their text's hash, its least and largest.
  const std::uint64_t h = std::hash<std::string>{}(shared_options(opt, self));
  std::uint64_t range[2] = {h, ~h};
  comm.allreduce(range, 2, MPI_MIN, t);
  if (range[0] != ~range[1])
    throw InvalidInput(
        "the ranks were given different options or constructors (tree, ct, level_offset, eps, "
        "terms, backend, field, hessian, charges, dipoles, densities and separate targets must "
        "be the same on every rank)");
}

void DistributedSolver::Impl::resolve_backend() {
  choice.backend_chosen = opt.backend == "auto";
  backend = choice.backend_chosen ? auto_backend(backend_needs(opt)) : opt.backend;
  choice.backend = backend;
  std::string why;
  if (!backend_takes(backend, backend_needs(opt), &why)) throw InvalidInput(why);
  fig.rank = comm.rank();
  fig.ranks = comm.size();
  fig.node_rank = comm.node_rank();
  // A GPU back end runs on the GPU of this rank's place among its node's ranks (several ranks
  // may share one).
  if (backend_runs_on_device(backend) && device::count() > 0) {
    fig.device = comm.node_rank() % device::count();
    device::select(fig.device);
  }
}

CostModel DistributedSolver::Impl::partition_model(Traffic* t) {
  // Rank 0's constants for every rank, so that every rank takes the same decisions: measured
  // when CT is to be chosen (as the one-process Solver does), else from the cache, else the
  // defaults (the partition needs their ratios only).
  const bool chosen = opt.ct == kAutoCapacity && opt.level_offset == 0;
  CostModel m = default_partition_model();
  double v[11] = {0};
  if (comm.rank() == 0) {
    std::exception_ptr error;
    try {
      if (!cost_model_for(opt, backend, threads, p,
                          places_threads(placement, threads, backend_runs_on_device(backend)),
                          chosen, &m, &choice, &warnings))
        choice.calibration = "default constants (none cached for this machine)";
    } catch (...) {
      v[9] = 1;
    }
    v[0] = m.m2l, v[1] = m.box, v[2] = m.point, v[3] = m.wx, v[4] = m.far_point;
    v[5] = m.fixed, v[6] = m.near_point, v[7] = m.pair, v[8] = m.overlap ? 1 : 0;
    v[10] = m.leaf;
  }
  comm.broadcast(v, 11, 0, t);
  if (v[9] != 0) throw RuntimeFailure("rank 0: the cost model's calibration failed");
  m = CostModel{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8] != 0, v[10]};
  // Each rank's own back end decides the overlap (a GPU on this rank's node, or none).
  m.overlap = backend_runs_on_device(backend);
  return m;
}

void DistributedSolver::Impl::choose_capacity(const LocalPoints& pts, const CostModel& model,
                                              Traffic* t, int* ct, int* offset) {
  const TreeKind kind = parse_tree_kind(opt.tree);
  choice.ct_chosen = opt.ct == kAutoCapacity && opt.level_offset == 0;
  if (!choice.ct_chosen) {
    *ct = choice.ct = opt.ct == kAutoCapacity ? kPapersCapacity : opt.ct;
    *offset = choice.level_offset = opt.level_offset;
    return;
  }
  // Each candidate's global shape, priced over the ranks (partition.hpp's leaf work under the
  // first cut, summed): the same figures, and so the same choice, on every rank.
  const double t0 = now_seconds();
  auto build = [&](int c, int o) {
    CapacityCandidate cand;
    GlobalShape shape;
    try {
      shape = grow_global_shape(comm, pts, c, o, kind, nullptr, threads, t);
    } catch (const InvalidInput&) {  // an offset past the root or the deepest level: every rank
      cand.total = INFINITY;
      return cand;
    }
    const Partition first = cut_leaves(leaf_points(shape.tree), comm.size());
    const int me = comm.rank();
    RestrictedTargets rt(&shape.tree, first.begin(me), first.end(me));
    const Plan plan = build_plan(shape.tree, threads, plan_options(p));
    const LeafWork w = leaf_work(shape.tree, rt, plan, first.begin(me), first.end(me));
    double sums[8] = {w.total_far.m2l,        w.total_far.boxes, w.total_far.sources,
                      w.total_far.targets,    w.total_far.wx,    w.total_pairs,
                      double(plan.m2l_pairs), w.total_far.leaves};
    comm.allreduce(sums, 8, MPI_SUM, t);
    const FarWork far{sums[0], sums[1], sums[2], sums[3], sums[4], sums[7]};
    const Prediction pr = predict(model, far, sums[5],
                                  double(pts.total_sources + pts.total_targets), p, far_shape(opt));
    cand.levels = shape.tree.levels;
    cand.leaf_boxes = shape.tree.leaves.size();
    cand.near_pairs = std::uint64_t(sums[5]);
    cand.m2l_pairs = std::uint64_t(sums[6]);
    cand.far = pr.far;
    cand.near = pr.near;
    cand.total = pr.total;
    return cand;
  };
  const CapacityCandidate best = search_capacity(kind, model, p, build, &choice.candidates);
  *ct = choice.ct = best.ct;
  *offset = choice.level_offset = best.level_offset;
  choice.predicted_seconds = best.total;
  timings.choose = choice.choose_seconds = now_seconds() - t0;
}

void DistributedSolver::Impl::partition(const LocalPoints& pts, GlobalShape* shape,
                                        const CostModel& model, Traffic* t) {
  const int me = comm.rank();
  const PlanOptions po = plan_options(p);
  // The first cut, by points: this rank's leaves planned and priced.
  Partition part = cut_leaves(leaf_points(shape->tree), comm.size());
  std::vector<double> cost;
  Plan plan;
  {
    RestrictedTargets rt(&shape->tree, part.begin(me), part.end(me));
    timed(&timings.plan, [&] { plan = build_plan(shape->tree, threads, po); });
    const LeafWork w = leaf_work(shape->tree, rt, plan, part.begin(me), part.end(me));
    cost = leaf_costs(w, model, p, far_shape(opt));
  }
  // Every leaf's price, then the final cut: contiguous ranges of equal predicted cost.
  std::vector<std::int64_t> counts;
  const std::vector<double> all = comm.allgatherv(cost, &counts, t);
  const Partition first = part;
  part = cut_leaves(all, comm.size());
  fig.predicted = std::accumulate(all.begin() + part.begin(me), all.begin() + part.end(me), 0.0);
  fig.leaves = std::size_t(part.end(me) - part.begin(me));
  RestrictedTargets rt(&shape->tree, part.begin(me), part.end(me));
  if (part.first != first.first)
    timed(&timings.plan, [&] { plan = build_plan(shape->tree, threads, po); });
  timed(&timings.tree, [&] { own = distribute_points(comm, pts, *shape, part, threads, t); });
  timed(&timings.plan, [&] {
    ghosts = fetch_ghosts(comm, shape->tree, plan, part, own, t);
    collectively(comm,
                 [&] { let = build_let(shape->tree, plan, part, me, &own, &ghosts, threads, po); });
    multipoles = route_multipoles(comm, let, shape->tree, part, t);
  });
  source_of_item = inverse(own.sources.arrived);
  target_of_item = self ? source_of_item : inverse(own.targets.arrived);
}

void DistributedSolver::Impl::fill_stats(const GlobalShape& shape, Traffic* t) {
  stats = tree_figures(shape.tree, Plan{});
  // The work: every rank's lists, summed.
  const Plan& plan = let.plan;
  std::uint64_t work[4] = {plan.near.pairs, plan.m2l_pairs, plan.m2p_terms, plan.p2l_terms};
  comm.allreduce(work, 4, MPI_SUM, t);
  double flops = far_field_flops(let.tree, let.plan, p, far_shape(opt));
  comm.allreduce(&flops, 1, MPI_SUM, t);
  stats.near_pairs = work[0];
  stats.m2l_pairs = work[1];
  stats.m2p_terms = work[2];
  stats.p2l_terms = work[3];
  stats.far_flops = flops;
  stats.terms = p;
  stats.self = self;
  stats.accuracy_floor = opt.terms == 0 && opt.eps < kAttainableError ? kAttainableError : 0;
  fig.caller_sources = caller_sources;
  fig.caller_targets = caller_targets;
  fig.sources = own.n_sources();
  fig.targets = let.tree.n_targets();
  fig.ghost_sources = ghosts.leaves.empty() ? 0 : std::size_t(ghosts.exchange.recv_items());
  fig.let_boxes = let.tree.boxes();
  fig.multipoles_in = multipoles.recv_box.size();
  fig.multipoles_out = multipoles.send_box.size();
}

void DistributedSolver::Impl::set_up_near_field() {
  if (let.tree.n_targets() == 0) return;  // no own targets: no near field to sum
  near = make_near_field_backend(backend);
  const Tree& tr = let.tree;
  // The local order is the tree's (identity permutations): caller coordinates are the tree's.
  NearFieldProblem problem =
      make_near_field_problem(tr, let.plan, tr.sx.data(), tr.sy.data(), tr.tx(), tr.ty());
  set_problem_options(opt, threads, &problem);
  near->setup(problem);
}

}  // namespace mlfma2d
