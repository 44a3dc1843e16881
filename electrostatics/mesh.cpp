#include "electrostatics/mesh.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "electrostatics/panel_integrals.hpp"
#include "mlfma2d/errors.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d::es {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kTwoPi = 2 * kPi;
// The dense method stores its matrix and LU: 2 (N + 1)^2 doubles, 1 GB at 8000.
constexpr std::size_t kMaxDensePanels = 8000;
// Vectors shorter than this are summed on one thread.
constexpr std::size_t kParallelFrom = 20000;

// The closest approach of two different contours relative to the panels there: where the
// distance is below the panel length, the collocation cannot resolve the gap.
std::string narrow_gap(const PanelSet& ps) {
  const PointTree tree(ps.xm, ps.ym);
  double worst = 1e300, distance = 0, length = 0;
  int a = -1, b = -1;
  std::vector<std::uint32_t> near;
  for (std::size_t j = 0; j < ps.size(); ++j) {
    near.clear();
    tree.within(ps.xm[j], ps.ym[j], 2 * ps.h[j], &near);
    for (std::uint32_t i : near) {
      if (ps.contour[i] == ps.contour[j]) continue;
      const Segment &s = ps.seg[i], &t = ps.seg[j];
      const Curve cs(s.x0, s.y0, s.x1, s.y1), ct(t.x0, t.y0, t.x1, t.y1);
      const double d = std::min(std::min(cs.distance(t.x0, t.y0), cs.distance(t.x1, t.y1)),
                                std::min(ct.distance(s.x0, s.y0), ct.distance(s.x1, s.y1)));
      const double h = std::max(ps.h[i], ps.h[j]);
      if (d / h < worst && d > 1e-13) {  // 0: a region touching a conductor, no gap
        worst = d / h;
        distance = d;
        length = h;
        a = ps.contour[j];
        b = ps.contour[i];
      }
    }
  }
  if (a < 0 || worst >= 1) return "";
  return "; contours " + std::to_string(std::min(a, b)) + " and " + std::to_string(std::max(a, b)) +
         " come within " + num(distance * ps.frame.scale) + " m of each other where panels are " +
         num(length * ps.frame.scale) + " m long: refine there (smaller --panel-size, or " +
         "--accuracy, which refines until the capacitance converges)";
}

}  // namespace

Mesh::Mesh(const Contours& contours, const ElectrostaticOptions& o, int level, bool vacuum,
           double fmm_eps, int threads_, int block_, std::shared_ptr<const SolveRanks> over)
    : ranks(o.method == "dense" || !over ? es::one_process() : std::move(over)),
      threads(threads_),
      block(std::max(1, block_)) {
  timed(&setup.discretise, [&] { ps = discretise(contours, o, level, vacuum); });
  bordered = !ps.mirror;
  row_weight = std::sqrt(double(n())) / ps.perimeter;
  // This rank's entries of the system's vectors: its panels, and the border if it falls in them.
  const PointRange mine = ranks->share(size());
  first = mine.first;
  local = mine.count;
  here = {std::min(first, n()), std::min(first + local, n()) - std::min(first, n())};
  border_here = bordered && first <= n() && n() < first + local;
  arc = arc_corrections(ps, o.near_radius);
  const bool field = ps.interfaces || ps.two_sided;
  if (o.method == "dense") {
    if (n() > kMaxDensePanels) {
      throw InvalidInput("method dense: " + std::to_string(n()) + " panels is more than the " +
                         std::to_string(kMaxDensePanels) + " it stores; use method fmm");
    }
    timed(&setup.preconditioner, [&] {  // the factorisation stands in for the set-up
      const std::size_t N = n(), M = size();
      std::vector<double> s;
      dense_system(ps, arc, &s, threads);
      dense_a = std::make_unique<Eigen::MatrixXd>(M, M);
      Eigen::MatrixXd& a = *dense_a;
      a.topLeftCorner(N, N) = Eigen::Map<Eigen::MatrixXd>(s.data(), N, N);
      if (bordered) {
        for (std::size_t i = 0; i < N; ++i) a(i, N) = ps.is_interface(i) ? 0.0 : 1.0;
        for (std::size_t j = 0; j < N; ++j) a(N, j) = row_weight * ps.h[j];
        a(N, N) = 0;
      }
      dense = std::make_unique<Eigen::PartialPivLU<Eigen::MatrixXd>>(a);
    });
    return;
  }
  Options fmm = o.fmm;
  fmm.eps = fmm_eps;
  // This rank's rows: the centres of its panels are its FMM's targets.
  const auto from = std::ptrdiff_t(here.first), to = std::ptrdiff_t(here.first + here.count);
  const std::vector<double> tx(ps.xm.begin() + from, ps.xm.begin() + to);
  const std::vector<double> ty(ps.ym.begin() + from, ps.ym.begin() + to);
  op = std::make_unique<SingleLayer>(ps, tx, ty, fmm, o.quadrature_nodes, o.near_radius, field,
                                     *ranks, here, block);
  setup.fmm_setup = op->seconds_setup_fmm;
  setup.near = op->seconds_setup_near;
  work_for(block);
  // auto = block: never far from the best, where none can take 10x its iterations (the
  // 512-gon coax at 1e5 panels: 13 against 239, results/dev-machine/wave3/solve_iterations.txt).
  preconditioner = o.preconditioner == "auto" ? "block" : o.preconditioner;
  timed(&setup.preconditioner, [&] {
    pre =
        std::make_unique<Preconditioner>(ps, arc, preconditioner, o.block_size, o.block_overlap,
                                         bordered, row_weight, threads, *ranks, here, border_here);
  });
}

void Mesh::dense_gradient(const double* u, std::size_t i, double* x, double* y) const {
  *x = *y = 0;
  for (std::size_t j = 0; j < n(); ++j) {
    double ax, ay;
    panel_log_gradient(ps.seg[j], ps.xm[i], ps.ym[i], &ax, &ay);
    if (ps.mirror) {
      double bx, by;
      panel_log_gradient(column_segment(ps, j + n()), ps.xm[i], ps.ym[i], &bx, &by);
      ax -= bx;
      ay -= by;
    }
    *x += u[j] * ax;
    *y += u[j] * ay;
  }
}

void Mesh::add_arc(const double* u, double* g) const {
  for (std::size_t k = 0; k < here.count; ++k) {
    const std::size_t i = here.first + k;
    for (std::size_t e = arc.start[i]; e < arc.start[i + 1]; ++e)
      g[k] += arc.val[e] * u[arc.col[e]];
  }
}

void Mesh::system(const double* x, double* y) {
  system_block(1, x, y);
}

void Mesh::system_block(int k, const double* x, double* y) {
  if (ranks->size() == 1) {  // this rank's entries are every entry
    product_block(k, x, y);
    return;
  }
  // The near corrections, the arcs and the constant read other ranks' entries.
  const std::vector<double> all = gather_block(k, x);
  product_block(k, all.data(), y);
}

std::vector<double> Mesh::gather_block(int k, const double* mine) const {
  const std::size_t kc = static_cast<std::size_t>(k), M = size();
  const std::vector<double> ranked = ranks->gather(mine, kc * local);
  if (k == 1) return ranked;
  // Rank r sent its k pieces one after the other: piece c of rank r goes to c M + first_r.
  std::vector<double> all(kc * M);
  std::size_t at = 0;
  for (int r = 0; r < ranks->size(); ++r) {
    const PointRange part = rank_part(M, r, ranks->size());
    for (std::size_t c = 0; c < kc; ++c, at += part.count) {
      std::copy(ranked.begin() + std::ptrdiff_t(at),
                ranked.begin() + std::ptrdiff_t(at + part.count),
                all.begin() + std::ptrdiff_t(c * M + part.first));
    }
  }
  return all;
}

void Mesh::product(const double* x, double* y) {
  product_block(1, x, y);
}

void Mesh::product_block(int k, const double* x, double* y) {
  const std::size_t N = n(), M = size(), count = here.count;
  if (dense) {
    for (int c = 0; c < k; ++c) {
      Eigen::Map<Eigen::VectorXd>(y + c * M, M) =
          *dense_a * Eigen::Map<const Eigen::VectorXd>(x + c * M, M);
    }
    return;
  }
  // The operator takes the panel densities of each vector (its first N entries).
  const double* u = x;
  if (k > 1 && M != N) {
    work.resize(k * N);
    for (int c = 0; c < k; ++c) std::copy(x + c * M, x + c * M + N, work.begin() + c * N);
    u = work.data();
  }
  const bool field = ps.interfaces;
  work_for(k);
  op->apply_block(k, u, phi.data(), field ? gx.data() : nullptr, field ? gy.data() : nullptr);
  std::vector<double> charge(k);
  for (int c = 0; c < k; ++c) {
    charge[c] = assemble(x + c * M, phi.data() + c * count, field ? gx.data() + c * count : nullptr,
                         field ? gy.data() + c * count : nullptr, y + c * local);
  }
  if (!bordered) return;
  ranks->sum(charge.data(), charge.size());  // the block's charge rows in one sum
  if (border_here) {
    for (int c = 0; c < k; ++c) y[c * local + count] = row_weight * charge[c];
  }
}

void Mesh::work_for(int k) {
  // + 1: a rank without panels still passes arrays.
  const std::size_t size = static_cast<std::size_t>(k) * here.count + 1;
  if (phi.size() < size) phi.resize(size);
  if (op->field() && gx.size() < size) {
    gx.resize(size);
    gy.resize(size);
  }
}

void Mesh::release_block() {
  if (!op) return;
  op->release_block();
  for (std::vector<double>* v : {&phi, &gx, &gy, &work}) {
    v->resize(std::min(v->size(), v == &work ? n() : here.count + 1));
    v->shrink_to_fit();
  }
}

double Mesh::assemble(const double* x, const double* phi_x, const double* gx_x, const double* gy_x,
                      double* y) const {
  const std::size_t N = n(), count = here.count, p0 = here.first;
  const double c = bordered ? x[N] : 0.0;
  double charge = 0;
#pragma omp parallel for reduction(+ : charge) schedule(static) num_threads(threads) \
  if (count >= kParallelFrom)
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = p0 + k;
    if (ps.is_interface(i)) {
      const double el = ps.eps_left[i], er = ps.eps_right[i];
      double g = ps.nx[i] * gx_x[k] + ps.ny[i] * gy_x[k];
      for (std::size_t e = arc.start[i]; e < arc.start[i + 1]; ++e) g += arc.val[e] * x[arc.col[e]];
      y[k] = kPi * x[i] + (el - er) / (el + er) * g;
    } else {
      y[k] = -phi_x[k] + c;
    }
    charge += ps.h[i] * x[i];
  }
  return charge;
}

std::vector<double> Mesh::rhs(const std::vector<double>& potentials, double charge_n) const {
  std::vector<double> b(size(), 0.0);
  for (std::size_t i = 0; i < n(); ++i) {
    if (!ps.is_interface(i)) b[i] = potentials[ps.conductor[i]];
  }
  if (bordered) b[n()] = row_weight * charge_n;
  return b;
}

double Mesh::residual(const std::vector<double>& b, const std::vector<double>& x) {
  std::vector<double> ax(local + 1);
  product(x.data(), ax.data());
  double sums[2] = {0, 0};  // ||b - A x||^2, ||b||^2
  for (std::size_t k = 0; k < local; ++k) {
    const double bi = b[first + k];
    sums[0] += (bi - ax[k]) * (bi - ax[k]);
    sums[1] += bi * bi;
  }
  ranks->sum(sums, 2);
  return sums[1] > 0 ? std::sqrt(sums[0] / sums[1]) : std::sqrt(sums[0]);
}

SolveStats Mesh::solve(const std::vector<double>& b, std::vector<double>* x,
                       const ElectrostaticOptions& o, const std::string& what) {
  SolveStats st;
  if (dense) {
    *x = std::vector<double>(size());
    Eigen::Map<Eigen::VectorXd>(x->data(), size()) =
        dense->solve(Eigen::Map<const Eigen::VectorXd>(b.data(), size()));
    st.residual = residual(b, *x);
    return st;
  }
  GmresOptions g = gmres_options(o);
  if (o.progress) {
    g.on_iteration = [&](int, int it, double r) {
      o.progress(what + ": iteration " + std::to_string(it) + ", residual " + num(r));
    };
  }
  // GMRES on this rank's entries; the solution's every entry to every rank.
  const std::vector<double> mine(b.begin() + std::ptrdiff_t(first),
                                 b.begin() + std::ptrdiff_t(first + local));
  std::vector<double> xs;
  const GmresResult r =
      gmres([this](const double* in, double* out) { system(in, out); },
            [this](const double* in, double* out) { pre->apply(in, out); }, mine, &xs, g);
  *x = ranks->gather(xs.data(), local);
  if (!r.converged) not_converged(r, o);
  return {r.iterations, r.residual, r.history};
}

std::vector<SolveStats> Mesh::solve_block(const std::vector<std::vector<double>>& b,
                                          std::vector<std::vector<double>>* x,
                                          const ElectrostaticOptions& o, const std::string& what) {
  if (dense) {
    std::vector<SolveStats> stats;
    x->resize(b.size());
    for (std::size_t c = 0; c < b.size(); ++c) stats.push_back(solve(b[c], &(*x)[c], o, what));
    return stats;
  }
  GmresOptions g = gmres_options(o);
  // Each column's last iteration and residual: one line shows them all.
  std::vector<std::pair<int, double>> last(b.size(), {0, 1.0});
  if (o.progress) {
    g.on_iteration = [&](int column, int it, double r) {
      last[column] = {it, r};
      std::string its, residuals;
      for (const auto& [i, v] : last) {
        its += (its.empty() ? "" : ", ") + std::to_string(i);
        residuals += (residuals.empty() ? "" : ", ") + num(v);
      }
      o.progress(what + ": iterations " + its + ", residuals " + residuals);
    };
  }
  // As solve(): each column's entries of this rank, every entry of each solution gathered.
  const std::size_t kc = b.size();
  std::vector<std::vector<double>> mine, xs;
  for (const std::vector<double>& bc : b) {
    mine.emplace_back(bc.begin() + std::ptrdiff_t(first),
                      bc.begin() + std::ptrdiff_t(first + local));
  }
  const std::vector<GmresResult> results =
      gmres_block([this](int k, const double* in, double* out) { system_block(k, in, out); },
                  [this](const double* in, double* out) { pre->apply(in, out); }, mine, &xs, g);
  std::vector<double> pieces(kc * local + 1);
  for (std::size_t c = 0; c < kc; ++c) {
    std::copy(xs[c].begin(), xs[c].end(), pieces.begin() + std::ptrdiff_t(c * local));
  }
  const std::vector<double> all = gather_block(static_cast<int>(kc), pieces.data());
  x->resize(kc);
  for (std::size_t c = 0; c < kc; ++c) {
    (*x)[c].assign(all.begin() + std::ptrdiff_t(c * size()),
                   all.begin() + std::ptrdiff_t((c + 1) * size()));
  }
  std::vector<SolveStats> stats;
  for (const GmresResult& r : results) {
    if (!r.converged) not_converged(r, o);
    stats.push_back({r.iterations, r.residual, r.history});
  }
  return stats;
}

GmresOptions Mesh::gmres_options(const ElectrostaticOptions& o) const {
  GmresOptions g;
  g.tol = o.tol;
  g.restart = o.restart;
  g.max_iterations = o.max_iterations;
  g.threads = threads;
  g.sum = [this](double* v, std::size_t count) { ranks->sum(v, count); };
  return g;
}

void Mesh::not_converged(const GmresResult& r, const ElectrostaticOptions& o) const {
  throw RuntimeFailure("GMRES did not reach the relative residual " + num(o.tol) + " in " +
                       std::to_string(r.iterations) + " iterations (residual " + num(r.residual) +
                       ")" + narrow_gap(ps) + "; else raise the iteration limit or the tolerance");
}

void Mesh::normal_fields(int k, const double* u, double* ngrad) {
  const std::size_t N = n(), count = here.count, p0 = here.first;
  std::fill(ngrad, ngrad + k * count, 0.0);
  if (!ps.two_sided) return;
  if (dense) {
    for (int c = 0; c < k; ++c) {
      for (std::size_t l = 0; l < count; ++l) {
        const std::size_t i = p0 + l;
        if (ps.is_interface(i) || ps.eps_left[i] == ps.eps_right[i]) continue;
        double a, b;
        dense_gradient(u + c * N, i, &a, &b);
        ngrad[c * count + l] = ps.nx[i] * a + ps.ny[i] * b;
      }
    }
  } else {
    work_for(k);
    op->apply_block(k, u, phi.data(), gx.data(), gy.data());
    for (std::size_t e = 0; e < k * count; ++e) {
      const std::size_t i = p0 + e % count;
      ngrad[e] = ps.nx[i] * gx[e] + ps.ny[i] * gy[e];
    }
  }
  for (int c = 0; c < k; ++c) add_arc(u + c * N, ngrad + c * count);
}

std::vector<double> Mesh::free_charges(const std::vector<double>& x, int conductors,
                                       std::vector<double>* sigma) {
  std::vector<double> ngrad(here.count + 1), mine;
  normal_fields(1, x.data(), ngrad.data());
  std::vector<double> q = charges(x.data(), ngrad.data(), conductors, sigma ? &mine : nullptr);
  ranks->sum(q.data(), q.size());
  if (sigma) *sigma = ranks->gather(mine.data(), here.count);
  return q;
}

std::vector<std::vector<double>> Mesh::free_charges_block(const std::vector<std::vector<double>>& x,
                                                          int conductors) {
  const std::size_t N = n(), k = x.size(), nc = static_cast<std::size_t>(conductors);
  std::vector<double> u(k * N), ngrad(k * here.count + 1), all(k * nc);
  for (std::size_t c = 0; c < k; ++c) std::copy(x[c].begin(), x[c].begin() + N, u.begin() + c * N);
  normal_fields(static_cast<int>(k), u.data(), ngrad.data());
  for (std::size_t c = 0; c < k; ++c) {
    const std::vector<double> q =
        charges(x[c].data(), ngrad.data() + c * here.count, conductors, nullptr);
    std::copy(q.begin(), q.end(), all.begin() + std::ptrdiff_t(c * nc));
  }
  ranks->sum(all.data(), all.size());  // every column's charges in one sum
  std::vector<std::vector<double>> q;
  for (std::size_t c = 0; c < k; ++c) {
    q.emplace_back(all.begin() + std::ptrdiff_t(c * nc),
                   all.begin() + std::ptrdiff_t((c + 1) * nc));
  }
  return q;
}

std::vector<double> Mesh::charges(const double* x, const double* ngrad, int conductors,
                                  std::vector<double>* sigma) const {
  const std::size_t count = here.count, p0 = here.first;
  std::vector<double> q(conductors, 0.0);
  if (sigma) sigma->assign(count, 0.0);
  const double scale = ps.frame.scale;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t j = p0 + k;
    double f = x[j];  // the free density in units of the total one (interfaces: the total)
    if (!ps.is_interface(j)) {
      const double el = ps.eps_left[j], er = ps.eps_right[j];
      f = 0.5 * (el + er) * x[j] + (el - er) / kTwoPi * ngrad[k];
      q[ps.conductor[j]] += kTwoPi * kEpsilon0 * ps.h[j] * f;
    }
    if (sigma) (*sigma)[k] = kTwoPi * kEpsilon0 * f / scale;
  }
  return q;
}

}  // namespace mlfma2d::es
