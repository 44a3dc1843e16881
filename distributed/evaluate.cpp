// One distributed evaluation (docs/distributed.md, "One evaluation"): the strengths to the owners
// of their points; the ghost sources' strengths posted, the upward pass beside them; the partial
// multipoles posted, the near field beside them (on a device's host thread, or here); the remote
// multipoles added, the downward pass; the results back to the ranks that passed the targets.
// Every exchange's pattern was fixed at construction.
#include <algorithm>
#include <exception>

#include "distributed/exchange.hpp"
#include "distributed/impl.hpp"
#include "runtime/timer.hpp"
#include "solver/concurrency.hpp"
#include "solver/options.hpp"
#include "solver/points.hpp"

namespace mlfma2d {
namespace {

// Local arrays of nd x n values (resized) for each kind the options carry, as Rows.
Rows local_rows(const Options& opt, std::size_t n, std::vector<double>* q, std::vector<double>* mx,
                std::vector<double>* my) {
  Rows r;
  r.nd = opt.densities;
  r.n = n;
  const std::size_t all = std::size_t(opt.densities) * n;
  if (opt.charges) {
    q->resize(all);
    r.a.push_back(q->data());
  }
  if (opt.dipoles) {
    mx->resize(all);
    my->resize(all);
    r.a.push_back(mx->data());
    r.a.push_back(my->data());
  }
  return r;
}

// The outputs the options ask for, as Rows of n points (the potential first).
Rows output_rows(const Options& opt, std::size_t n, const Outputs& out) {
  Rows r;
  r.nd = opt.densities;
  r.n = n;
  r.a.push_back(out.potential);
  if (opt.field) {
    r.a.push_back(out.field_x);
    r.a.push_back(out.field_y);
  }
  if (opt.hessian) {
    r.a.push_back(out.hessian_xx);
    r.a.push_back(out.hessian_xy);
  }
  return r;
}

}  // namespace

Rows DistributedSolver::Impl::strength_rows(const Densities& in, std::size_t n, int team) {
  Rows rows;
  rows.nd = opt.densities;
  rows.n = n;
  if (opt.charges) rows.a.push_back(const_cast<double*>(in.charges));
  if (opt.dipoles) {
    PreparedPoints counts;
    counts.caller_sources = n;
    dipole_moments(counts, in.dipole_strengths, in.dipole_vectors, in.vectors_per_density,
                   opt.densities, &moment_x, &moment_y, team);
    rows.a.push_back(moment_x.data());
    rows.a.push_back(moment_y.data());
  }
  return rows;
}

void DistributedSolver::Impl::send_strengths(const Densities& in, int team, Traffic* t) {
  // The caller's strengths (dipoles as moments d v), item by item in the route's order.
  const Rows caller = strength_rows(in, caller_sources, team);
  Exchange& route = own.sources.to_owners;
  const std::size_t w = std::size_t(caller.width());
  items_out.resize(std::size_t(route.send_items()) * w);
  items_in.resize(std::size_t(route.recv_items()) * w);
  const Array<std::int64_t>& order = own.sources.caller;
  gather_items(
      caller, std::size_t(route.send_items()), [&](std::int64_t k) { return order[k]; },
      items_out.data(), team);
  route.post(items_out.data(), items_in.data(), int(w), t);
  route.wait(t);
  // Into the local order: own source i (local position own_begin + i) arrived as item
  // arrived[i]; item k is own source source_of_item[k].
  const Rows local =
      local_rows(opt, std::size_t(let.tree.n_sources()), &local_q, &local_mx, &local_my);
  const std::int64_t at = let.own_begin;
  scatter_items(
      items_in.data(), std::size_t(route.recv_items()),
      [&](std::int64_t k) { return at + source_of_item[k]; }, local, team);
}

void DistributedSolver::Impl::post_ghosts(int team, Traffic* t) {
  Exchange& ex = ghosts.exchange;
  const Rows local =
      local_rows(opt, std::size_t(let.tree.n_sources()), &local_q, &local_mx, &local_my);
  const std::size_t w = std::size_t(local.width());
  ghost_out.resize(std::size_t(ex.send_items()) * w);
  ghost_in.resize(std::size_t(ex.recv_items()) * w);
  const std::int64_t at = let.own_begin;
  gather_items(
      local, std::size_t(ex.send_items()),
      [&](std::int64_t k) { return at + ghosts.send_index[k]; }, ghost_out.data(), team);
  ex.post(ghost_out.data(), ghost_in.data(), int(w), t);
}

void DistributedSolver::Impl::receive_ghosts(int team, Traffic* t) {
  Exchange& ex = ghosts.exchange;
  ex.wait(t);
  const Rows local =
      local_rows(opt, std::size_t(let.tree.n_sources()), &local_q, &local_mx, &local_my);
  // Ghosts of lower ranks sit before the own sources, those of higher ranks after them.
  const std::int64_t before = ghosts.before, n_own = std::int64_t(own.n_sources());
  scatter_items(
      ghost_in.data(), std::size_t(ex.recv_items()),
      [&](std::int64_t k) { return k < before ? k : k + n_own; }, local, team);
}

void DistributedSolver::Impl::send_results(const Outputs& out, int team, Traffic* t) {
  const std::size_t m = let.tree.n_targets();
  Outputs mine;
  mine.potential = phi.data();
  mine.field_x = opt.field ? ex.data() : nullptr;
  mine.field_y = opt.field ? ey.data() : nullptr;
  mine.hessian_xx = opt.hessian ? hxx.data() : nullptr;
  mine.hessian_xy = opt.hessian ? hxy.data() : nullptr;
  const Rows rows = output_rows(opt, m, mine);
  Exchange& route = (self ? own.sources : own.targets).from_owners;
  const std::size_t w = std::size_t(rows.width());
  items_out.resize(std::size_t(route.send_items()) * w);
  items_in.resize(std::size_t(route.recv_items()) * w);
  gather_items(
      rows, std::size_t(route.send_items()), [&](std::int64_t k) { return target_of_item[k]; },
      items_out.data(), team);
  route.post(items_out.data(), items_in.data(), int(w), t);
  route.wait(t);
  const Array<std::int64_t>& order = (self ? own.sources : own.targets).caller;
  scatter_items(
      items_in.data(), std::size_t(route.recv_items()), [&](std::int64_t k) { return order[k]; },
      output_rows(opt, caller_targets, out), team);
  if (opt.hessian) {
    const std::size_t n = std::size_t(opt.densities) * caller_targets;
    for (std::size_t i = 0; i < n; ++i) out.hessian_yy[i] = -out.hessian_xx[i];
  }
}

void DistributedSolver::Impl::check(std::size_t n, std::size_t m, const Densities& in,
                                    const Outputs& out) const {
  if (n > 0) check_strengths(far_shape(opt), n, in);
  if (m > 0) check_outputs(opt.field, opt.hessian, out);
}

// The team of an evaluation: beside a device back end's host thread, one thread fewer.
int DistributedSolver::Impl::team() const {
  const bool device = near && near->runs_on_device();
  return device ? std::max(1, threads - 1) : threads;
}

void DistributedSolver::Impl::evaluate(const Densities& in, const Outputs& out) {
  collectively(comm, [&] { check(caller_sources, caller_targets, in, out); });
  const double t0 = now_seconds();
  Traffic redistribution;
  send_strengths(in, team(), &redistribution);
  compute();
  send_results(out, team(), &redistribution);
  finish(t0, redistribution);
}

void DistributedSolver::Impl::evaluate_owned(const Densities& in, const Outputs& out) {
  const std::size_t n = own.n_sources(), m = let.tree.n_targets();
  collectively(comm, [&] { check(n, m, in, out); });
  const double t0 = now_seconds();
  // The strengths are the own sources' already: into the local order, no exchange.
  const Rows given = strength_rows(in, n, team());
  const Rows local =
      local_rows(opt, std::size_t(let.tree.n_sources()), &local_q, &local_mx, &local_my);
  const std::int64_t at = let.own_begin;
  std::vector<double> items(n * std::size_t(given.width()));
  gather_items(
      given, n, [](std::int64_t k) { return k; }, items.data(), team());
  scatter_items(
      items.data(), n, [&](std::int64_t k) { return at + k; }, local, team());
  compute();
  // The outputs are the own targets': as they are.
  const std::size_t all = std::size_t(opt.densities) * m;
  auto copy = [&](const std::vector<double>& from, double* to) {
    if (to && all > 0) std::copy(from.begin(), from.begin() + std::ptrdiff_t(all), to);
  };
  copy(phi, out.potential);
  if (opt.field) copy(ex, out.field_x), copy(ey, out.field_y);
  if (opt.hessian) {
    copy(hxx, out.hessian_xx);
    copy(hxy, out.hessian_xy);
    for (std::size_t k = 0; k < all; ++k) out.hessian_yy[k] = -hxx[k];
  }
  finish(t0, Traffic{});
}

void DistributedSolver::Impl::compute() {
  Timings& t = timings;
  t.p2m = t.m2m = t.m2l = t.p2l = t.l2l = t.l2p = t.m2p = t.far = t.near = t.total = 0;
  t.strengths = t.near_collect = t.near_transfer = t.near_kernel = t.near_return = 0;
  ghost_traffic = multipole_traffic = other_traffic = Traffic{};
  const bool device = near && near->runs_on_device();
  const int team = this->team();
  Traffic& ghost = ghost_traffic;
  Traffic& multipole = multipole_traffic;
  Traffic& other = other_traffic;
  post_ghosts(team, &ghost);
  // The work between the exchanges: an error is kept, the exchanges go on, and every rank learns
  // of it before the results go back.
  std::exception_ptr error;
  auto guarded = [&](auto&& f) {
    if (error) return;
    try {
      f();
    } catch (...) {
      error = std::current_exception();
    }
  };
  const Strengths s{opt.charges ? local_q.data() : nullptr, opt.dipoles ? local_mx.data() : nullptr,
                    opt.dipoles ? local_my.data() : nullptr};
  // The local order is the tree's: the strengths are the far field's as they are (the ghosts'
  // filled in before the downward pass reads them).
  const FarSources src{s.q, s.mx, s.my};
  FarOutputs far_out;
  guarded([&] {
    timed(&t.far, [&] {
      far_out = arrays.far_outputs(let.tree, opt.densities, opt.field, opt.hessian, team);
      far->reset(opt.densities, team);
      far->upward_pass(src, team, &t);
    });
  });
  ghosts.exchange.progress(&ghost);
  // The partial multipoles other ranks' lists need, beside the near field.
  Exchange& mx = multipoles.exchange;
  const std::size_t mw = multipole_width(p, opt.densities);
  mp_out.resize(std::size_t(mx.send_items()) * mw);
  mp_in.resize(std::size_t(mx.recv_items()) * mw);
  if (!error)  // (after an error the expansions may not be there: zeros keep the pattern)
    pack_multipoles(far->expansions(), multipoles.send_box, p, mp_out.data());
  else
    std::fill(mp_out.begin(), mp_out.end(), 0.0);
  mx.post(mp_out.data(), mp_in.data(), int(mw), &multipole);
  receive_ghosts(team, &ghost);
  const std::size_t m = let.tree.n_targets(), all = std::size_t(opt.densities) * m;
  phi.assign(all, 0.0);
  if (opt.field) ex.assign(all, 0.0), ey.assign(all, 0.0);
  if (opt.hessian) hxx.assign(all, 0.0), hxy.assign(all, 0.0);
  NearFieldTimings near_times;
  stats.threads_placed = places_threads(placement, threads, device);
  {
    EvaluationThreads run(placement, team, stats.threads_placed, device,
                          backend_is_resident(backend));
    if (near)
      guarded([&] {
        run.start_near_field([&] {
          timed(&t.near, [&] {
            near->evaluate(
                NearSources{s.q, s.mx, s.my},
                NearOutputs{phi.data(), opt.field ? ex.data() : nullptr,
                            opt.field ? ey.data() : nullptr, opt.hessian ? hxx.data() : nullptr,
                            opt.hessian ? hxy.data() : nullptr},
                &near_times);
          });
        });
      });
    mx.wait(&multipole);
    guarded([&] {
      add_multipoles(mp_in.data(), multipoles.recv_box, p, &far->expansions());
      timed(&t.far, [&] { far->downward_pass(src, far_out, team, &t); });
    });
    guarded([&] { run.join(); });
  }
  t.near_collect = near_times.collect;
  t.near_transfer = near_times.transfer;
  t.near_kernel = near_times.kernel;
  t.near_return = near_times.ret;
  stats.device_memory = std::max(stats.device_memory, near_times.device_bytes);
  guarded([&] {
    const Outputs mine{phi.data(), ex.data(), ey.data(), hxx.data(), hxy.data(), nullptr};
    timed(&t.far, [&] {
      arrays.add_far_field(let.tree, opt.densities, opt.field, opt.hessian, mine, nullptr, team);
    });
  });
  {
    const double a0 = now_seconds();
    comm.agree(error);
    other.seconds += now_seconds() - a0;
  }
}

void DistributedSolver::Impl::finish(double t0, const Traffic& redistribution) {
  Timings& t = timings;
  t.total = now_seconds() - t0;
  const Traffic& ghost = ghost_traffic;
  const Traffic& multipole = multipole_traffic;
  const Traffic& other = other_traffic;
  // The figures of this evaluation.
  fig.evaluation = t.total;
  fig.redistribute = redistribution.seconds;
  fig.ghost_wait = ghost.seconds;
  fig.multipole_wait = multipole.seconds;
  fig.communication = redistribution.seconds + ghost.seconds + multipole.seconds + other.seconds;
  fig.work = fig.evaluation - fig.communication;
  fig.sent = redistribution.sent + ghost.sent + multipole.sent;
  fig.received = redistribution.received + ghost.received + multipole.received;
  fig.ghost_sent = ghost.sent;
  fig.multipole_sent = multipole.sent;
  fig.redistribution_sent = redistribution.sent;
}

DistributedPoints DistributedSolver::Impl::owned_points(bool sources) {
  // Each sender's caller indices along the route; the receive ranges say which rank sent each.
  Route& route = sources || self ? own.sources : own.targets;
  Exchange& ex = route.to_owners;
  const std::vector<std::int64_t> caller(route.caller.begin(), route.caller.end());
  std::vector<std::int64_t> origin(std::size_t(ex.recv_items()));
  Traffic t;
  ex.post(caller.data(), origin.data(), 1, &t);
  ex.wait(&t);
  const Tree& tree = let.tree;
  const bool own_sources = sources || self;
  const std::size_t n = route.arrived.size();
  const std::vector<std::int64_t>& begin = ex.recv_begin();
  DistributedPoints p;
  p.x.resize(n);
  p.y.resize(n);
  p.rank.resize(n);
  p.index.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t k = route.arrived[i];
    p.rank[i] = int(std::upper_bound(begin.begin(), begin.end(), k) - begin.begin()) - 1;
    p.index[i] = origin[std::size_t(k)];
    p.x[i] = own_sources ? tree.sx[std::size_t(let.own_begin) + i] : tree.tx()[i];
    p.y[i] = own_sources ? tree.sy[std::size_t(let.own_begin) + i] : tree.ty()[i];
  }
  return p;
}

// ---- The public class

DistributedSolver::DistributedSolver(MPI_Comm comm, const std::vector<double>& x,
                                     const std::vector<double>& y, const Options& options)
    : impl_(std::make_unique<Impl>(comm, x, y, std::vector<double>{}, std::vector<double>{}, true,
                                   options)) {}

DistributedSolver::DistributedSolver(MPI_Comm comm, const std::vector<double>& x,
                                     const std::vector<double>& y, const std::vector<double>& tx,
                                     const std::vector<double>& ty, const Options& options)
    : impl_(std::make_unique<Impl>(comm, x, y, tx, ty, false, options)) {}

DistributedSolver::~DistributedSolver() = default;
DistributedSolver::DistributedSolver(DistributedSolver&&) noexcept = default;
DistributedSolver& DistributedSolver::operator=(DistributedSolver&&) noexcept = default;

DistributedSolver::Impl& DistributedSolver::impl() const {
  if (!impl_) throw InvalidInput("this DistributedSolver was moved from: it holds no geometry");
  return *impl_;
}

Result DistributedSolver::evaluate(const std::vector<double>& q) {
  Impl& s = impl();
  const std::size_t want = std::size_t(s.opt.densities) * s.caller_sources;
  std::exception_ptr error;
  try {
    if (q.size() != want)
      throw InvalidInput("expected " + std::to_string(want) + " charges on this rank, got " +
                         std::to_string(q.size()));
    if (!s.opt.charges || s.opt.dipoles)
      throw InvalidInput("evaluate(q) takes charges alone: with dipoles, use evaluate(Densities)");
  } catch (...) {
    error = std::current_exception();
  }
  s.comm.agree(error);
  Densities in;
  in.charges = q.data();
  return evaluate(in);
}

Result DistributedSolver::evaluate(const Densities& in) {
  Impl& s = impl();
  Result r;
  const std::size_t all = std::size_t(s.opt.densities) * s.caller_targets;
  // One value more than needed: a rank with no targets still passes arrays (empty vectors may
  // have no data).
  auto make = [&](std::vector<double>* v) {
    v->reserve(all + 1);
    v->resize(all);
    return v->data();
  };
  Outputs out;
  out.potential = make(&r.potential);
  if (s.opt.field) {
    out.field_x = make(&r.field_x);
    out.field_y = make(&r.field_y);
  }
  if (s.opt.hessian) {
    out.hessian_xx = make(&r.hessian_xx);
    out.hessian_xy = make(&r.hessian_xy);
    out.hessian_yy = make(&r.hessian_yy);
  }
  s.evaluate(in, out);
  return r;
}

void DistributedSolver::evaluate(const Densities& in, const Outputs& out) {
  impl().evaluate(in, out);
}

void DistributedSolver::evaluate_owned(const Densities& in, const Outputs& out) {
  impl().evaluate_owned(in, out);
}

DistributedPoints DistributedSolver::owned_sources() const {
  return impl().owned_points(true);
}

DistributedPoints DistributedSolver::owned_targets() const {
  return impl().owned_points(false);
}

const Options& DistributedSolver::options() const {
  return impl().opt;
}
const TreeStats& DistributedSolver::stats() const {
  return impl().stats;
}
const Timings& DistributedSolver::timings() const {
  return impl().timings;
}
const DistributedFigures& DistributedSolver::figures() const {
  return impl().fig;
}
const std::vector<std::string>& DistributedSolver::warnings() const {
  return impl().warnings;
}
const AutoChoice& DistributedSolver::auto_choice() const {
  return impl().choice;
}

std::vector<DistributedFigures> DistributedSolver::gather_figures(int root) const {
  const Impl& s = impl();
  // Every field as a double (counts and bytes below 2^53), gathered in table order.
  std::vector<double> mine;
  for_each_field(s.fig, [&](const auto&, const auto& v) { mine.push_back(double(v)); });
  const int n = s.comm.size();
  std::vector<double> all(s.comm.rank() == root ? mine.size() * std::size_t(n) : 0);
  MPI_Gather(mine.data(), int(mine.size()), MPI_DOUBLE, all.data(), int(mine.size()), MPI_DOUBLE,
             root, s.comm.get());
  std::vector<DistributedFigures> out;
  if (s.comm.rank() != root) return out;
  out.resize(std::size_t(n));
  for (int r = 0; r < n; ++r) {
    std::size_t k = std::size_t(r) * mine.size();
    for_each_field(out[r], [&](const auto&, auto& v) {
      v = static_cast<std::decay_t<decltype(v)>>(all[k++]);
    });
  }
  return out;
}

}  // namespace mlfma2d
