// The evaluation driver. It reads as the method: build the tree and plan once; then per charge
// vector the upward pass (P2M, M2M), the interaction lists (M2L), the downward pass (L2L, L2P),
// and the near field (P2P) through the chosen back end -- one timed scope per operator.
#include <omp.h>

#include <cmath>
#include <future>
#include <sstream>

#include "farfield/expansions.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "nearfield/backend.hpp"
#include "solver/plan.hpp"
#include "solver/timer.hpp"
#include "solver/tree.hpp"

#ifndef MLFMA2D_VERSION
#define MLFMA2D_VERSION "0.0.0"
#endif

namespace mlfma2d {

const char* version() { return MLFMA2D_VERSION; }

namespace {
// p(eps) = ceil(kTermsPerDigit * log10(1/eps)), calibrated in docs/accuracy.md: the error falls
// about 10x per 2.5-2.7 terms. 2.6 left the field of a box-aligned grid with mixed-sign charges
// 2.2x above eps (tests/test_unusual.cpp, PointsExactlyOnBoxEdgesAndCorners); 3.0 keeps every
// measured case below eps.
constexpr double kTermsPerDigit = 3.0;
}  // namespace

int terms_for_eps(double eps) {
  if (!(eps > 0 && eps < 1)) {
    std::ostringstream m;
    m << "eps must be in (0, 1), got " << eps;
    throw InvalidInput(m.str());
  }
  const int p = int(std::ceil(kTermsPerDigit * std::log10(1.0 / eps)));
  return std::min(kMaxTerms, std::max(4, p));
}

struct Solver::Impl {
  Options opt;
  int threads = 1;
  std::vector<double> x, y, tx, ty;  // caller order, kept for the back end
  Tree tree;
  Plan plan;
  std::unique_ptr<Operators> ops;
  Expansions exp;
  std::unique_ptr<NearFieldBackend> near;
  TreeStats stats;
  Timings timings;
  std::vector<std::string> warnings;
  std::vector<double> q_tree, far_phi, far_ex, far_ey;  // tree order

  Impl(const std::vector<double>& sx, const std::vector<double>& sy,
       const std::vector<double>& gx, const std::vector<double>& gy, const Options& o)
      : opt(o), x(sx), y(sy), tx(gx), ty(gy) {
    validate_options();
    threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
    const int p = opt.terms > 0 ? opt.terms : terms_for_eps(opt.eps);

    std::string warning;
    timed(&timings.tree,
          [&] { tree = build_tree(x, y, tx, ty, opt.ct, opt.level_offset, &warning, threads); });
    if (!warning.empty()) warnings.push_back(warning);
    if (all_at_one_point()) {
      warnings.push_back("all " + std::to_string(tree.n_sources()) + " sources" +
                         (tree.self ? "" : " and targets") +
                         " are identical: every pair is skipped, the potential (and field) is 0");
    }
    timed(&timings.plan, [&] { plan = build_plan(tree, threads); });
    timed(&timings.setup, [&] {
      ops = std::make_unique<Operators>(p);
      near = make_near_field_backend(opt.backend);
      NearFieldProblem problem;
      problem.tree = &tree;
      problem.plan = &plan;
      problem.x = x.data();
      problem.y = y.data();
      problem.tx = tree.self ? x.data() : tx.data();
      problem.ty = tree.self ? y.data() : ty.data();
      problem.field = opt.field;
      problem.threads = threads;
      problem.gpu_memory = opt.gpu_memory;
      problem.chunk_targets = opt.chunk_targets;
      near->setup(problem);
    });
    fill_stats(p);
  }

  // Whether every source and target is the same point, so that every pair is skipped.
  bool all_at_one_point() const {
    const double x0 = x[0], y0 = y[0];
    auto same = [&](const std::vector<double>& px, const std::vector<double>& py) {
      for (std::size_t i = 0; i < px.size(); ++i) {
        if (px[i] != x0 || py[i] != y0) return false;
      }
      return true;
    };
    return same(x, y) && same(tx, ty);
  }

  void validate_options() const {
    if (opt.ct < 1) throw InvalidInput("CT must be >= 1, got " + std::to_string(opt.ct));
    if (opt.terms < 0 || opt.terms > kMaxTerms)
      throw InvalidInput("terms must be in 1.." + std::to_string(kMaxTerms) + " (0 = from eps), got " +
                         std::to_string(opt.terms));
    if (opt.terms == 0) terms_for_eps(opt.eps);  // throws for eps outside (0, 1)
    if (opt.threads < 0) throw InvalidInput("threads must be >= 1 (0 = default), got " +
                                            std::to_string(opt.threads));
  }

  void fill_stats(int p) {
    stats.n_sources = tree.n_sources();
    stats.n_targets = tree.n_targets();
    stats.self = tree.self;
    stats.levels = tree.levels;
    stats.levels_ct = tree.levels_ct;
    stats.levels_capped = tree.capped;
    stats.ct = tree.ct;
    stats.t = tree.t;
    stats.D = tree.mean_per_box;
    stats.leaf_boxes = tree.leaves().size();
    for (int l = 1; l <= tree.levels; ++l) stats.boxes += tree.level[l].size();
    stats.near_pairs = plan.near_pairs;
    stats.m2l_pairs = plan.m2l_pairs;
    stats.far_flops = far_field_flops(tree, plan, p, opt.field);
    stats.terms = p;
    stats.box_size = tree.size;
  }

  void evaluate(const double* q, double* phi, double* fx, double* fy) {
    const std::size_t ns = tree.n_sources(), nt = tree.n_targets();
    for (std::size_t j = 0; j < ns; ++j)
      if (!std::isfinite(q[j]))
        throw InvalidInput("charge " + std::to_string(j) + " is not finite");
    if (opt.field && (!fx || !fy)) throw InvalidInput("field requested but no field output given");
    Timings& t = timings;
    t.p2m = t.m2m = t.m2l = t.l2l = t.l2p = t.far = t.near = t.total = 0;
    t.near_collect = t.near_transfer = t.near_kernel = t.near_return = 0;
    const double t0 = now_seconds();

    // Near field (P2P): the back end writes the caller-order outputs. A device back end runs on
    // its own host thread while the CPU computes the far field; the far field is added after.
    NearFieldTimings nt_times;
    auto near_field = [&] { timed(&t.near, [&] { near->evaluate(q, phi, fx, fy, &nt_times); }); };
    std::future<void> pending;
    if (near->runs_on_device())
      pending = std::async(std::launch::async, near_field);
    else
      near_field();

    // Far field, in tree order, added to the near field at the end.
    const int L = tree.levels;
    if (L >= 3) {
      timed(&t.far, [&] {
        q_tree.resize(ns);
        far_phi.assign(nt, 0.0);
        if (opt.field) {
          far_ex.assign(nt, 0.0);
          far_ey.assign(nt, 0.0);
        }
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::size_t j = 0; j < ns; ++j) q_tree[j] = q[tree.src_index[j]];
        exp.reset(tree, ops->p);

        timed(&t.p2m, [&] { P2M(tree, *ops, q_tree.data(), &exp, threads); });
        timed(&t.m2m, [&] {
          for (int l = L - 1; l >= 3; --l) M2M(tree, *ops, l, &exp, threads);
        });
        timed(&t.m2l, [&] {
          for (int l = 3; l <= L; ++l) M2L(tree, plan, *ops, l, &exp, threads);
        });
        timed(&t.l2l, [&] {
          for (int l = 4; l <= L; ++l) L2L(tree, *ops, l, &exp, threads);
        });
        timed(&t.l2p, [&] {
          L2P(tree, *ops, exp, far_phi.data(), opt.field ? far_ex.data() : nullptr,
              opt.field ? far_ey.data() : nullptr, threads);
        });
      });
    }
    if (pending.valid()) pending.get();  // rethrows the back end's error, if any
    t.near_collect = nt_times.collect;
    t.near_transfer = nt_times.transfer;
    t.near_kernel = nt_times.kernel;
    t.near_return = nt_times.ret;
    stats.device_memory = std::max(stats.device_memory, nt_times.device_bytes);
    if (L >= 3) {
      timed(&t.far, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::size_t i = 0; i < nt; ++i) {
          const std::int64_t to = tree.tgt_index[i];
          phi[to] += far_phi[i];
          if (opt.field) {
            fx[to] += far_ex[i];
            fy[to] += far_ey[i];
          }
        }
      });
    }
    t.total = now_seconds() - t0;
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

Result Solver::evaluate(const std::vector<double>& q) {
  if (q.size() != impl_->tree.n_sources())
    throw InvalidInput("expected " + std::to_string(impl_->tree.n_sources()) + " charges, got " +
                       std::to_string(q.size()));
  Result r;
  const std::size_t nt = impl_->tree.n_targets();
  r.potential.resize(nt);
  if (impl_->opt.field) {
    r.field_x.resize(nt);
    r.field_y.resize(nt);
  }
  impl_->evaluate(q.data(), r.potential.data(), impl_->opt.field ? r.field_x.data() : nullptr,
                  impl_->opt.field ? r.field_y.data() : nullptr);
  return r;
}

void Solver::evaluate(const double* q, double* potential, double* fx, double* fy) {
  impl_->evaluate(q, potential, fx, fy);
}

const Options& Solver::options() const { return impl_->opt; }
const TreeStats& Solver::stats() const { return impl_->stats; }
const Timings& Solver::timings() const { return impl_->timings; }
const std::vector<std::string>& Solver::warnings() const { return impl_->warnings; }

}  // namespace mlfma2d
