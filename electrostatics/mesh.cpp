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
           double fmm_eps, int threads_, std::shared_ptr<const SolveRanks> over)
    : ranks(o.method == "dense" ? es::one_process() : std::move(over)), threads(threads_) {
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
                                     *ranks, here);
  setup.fmm_setup = op->seconds_setup_fmm;
  setup.near = op->seconds_setup_near;
  phi.resize(here.count + 1);  // + 1: a rank without panels still passes arrays
  if (field) {
    gx.resize(here.count + 1);
    gy.resize(here.count + 1);
  }
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
  if (dense) {
    product(x, y);
    return;
  }
  // The near corrections, the arcs and the constant read other ranks' entries.
  const std::vector<double> all = ranks->gather(x, local);
  product(all.data(), y);
}

void Mesh::product(const double* x, double* y) {
  const std::size_t N = n();
  if (dense) {
    Eigen::Map<Eigen::VectorXd>(y, size()) =
        *dense_a * Eigen::Map<const Eigen::VectorXd>(x, size());
    return;
  }
  const bool field = ps.interfaces;
  op->apply(x, phi.data(), field ? gx.data() : nullptr, field ? gy.data() : nullptr);
  const double c = bordered ? x[N] : 0.0;
  const std::size_t count = here.count, p0 = here.first;
  double charge = 0;
#pragma omp parallel for reduction(+ : charge) schedule(static) num_threads(threads) \
  if (count >= kParallelFrom)
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = p0 + k;
    if (ps.is_interface(i)) {
      const double el = ps.eps_left[i], er = ps.eps_right[i];
      double g = ps.nx[i] * gx[k] + ps.ny[i] * gy[k];
      for (std::size_t e = arc.start[i]; e < arc.start[i + 1]; ++e) g += arc.val[e] * x[arc.col[e]];
      y[k] = kPi * x[i] + (el - er) / (el + er) * g;
    } else {
      y[k] = -phi[k] + c;
    }
    charge += ps.h[i] * x[i];
  }
  if (!bordered) return;
  ranks->sum(&charge, 1);
  if (border_here) y[count] = row_weight * charge;
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
  GmresOptions g;
  g.tol = o.tol;
  g.restart = o.restart;
  g.max_iterations = o.max_iterations;
  g.threads = threads;
  g.sum = [this](double* v, std::size_t count) { ranks->sum(v, count); };
  if (o.progress) {
    g.on_iteration = [&](int it, double r) {
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
  if (!r.converged) {
    throw RuntimeFailure("GMRES did not reach the relative residual " + num(o.tol) + " in " +
                         std::to_string(r.iterations) + " iterations (residual " + num(r.residual) +
                         ")" + narrow_gap(ps) +
                         "; else raise the iteration limit or the tolerance");
  }
  st.iterations = r.iterations;
  st.residual = r.residual;
  st.history = r.history;
  return st;
}

std::vector<double> Mesh::free_charges(const std::vector<double>& x, int conductors,
                                       std::vector<double>* sigma) {
  const std::size_t count = here.count, p0 = here.first;
  std::vector<double> ngrad(count, 0.0);  // n . grad (S u) where the sides differ
  if (ps.two_sided) {
    if (dense) {
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t i = p0 + k;
        if (ps.is_interface(i) || ps.eps_left[i] == ps.eps_right[i]) continue;
        double a, b;
        dense_gradient(x.data(), i, &a, &b);
        ngrad[k] = ps.nx[i] * a + ps.ny[i] * b;
      }
    } else {
      op->apply(x.data(), phi.data(), gx.data(), gy.data());
      for (std::size_t k = 0; k < count; ++k)
        ngrad[k] = ps.nx[p0 + k] * gx[k] + ps.ny[p0 + k] * gy[k];
    }
    add_arc(x.data(), ngrad.data());
  }
  std::vector<double> q(conductors, 0.0), mine(count, 0.0);
  const double scale = ps.frame.scale;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t j = p0 + k;
    double f = x[j];  // the free density in units of the total one (interfaces: the total)
    if (!ps.is_interface(j)) {
      const double el = ps.eps_left[j], er = ps.eps_right[j];
      f = 0.5 * (el + er) * x[j] + (el - er) / kTwoPi * ngrad[k];
      q[ps.conductor[j]] += kTwoPi * kEpsilon0 * ps.h[j] * f;
    }
    mine[k] = kTwoPi * kEpsilon0 * f / scale;
  }
  ranks->sum(q.data(), q.size());
  if (sigma) *sigma = ranks->gather(mine.data(), count);
  return q;
}

}  // namespace mlfma2d::es
