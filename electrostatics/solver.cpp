// The electrostatic solve: the bordered collocation system, its right-hand sides, GMRES (or a
// dense LU), and the physical quantities.
//
// Normalised units (x' = (x - centre) / L, L = the contours' extent): with u = L sigma / (2 pi eps)
// (volts) the potential is phi(x) = -(S u)(x') - log(L) Q / (2 pi eps) + c, S the single-layer
// operator of operator.hpp. Unknowns u_1..u_N and c' = c - log(L) Q / (2 pi eps):
//   -(S u)_i + c'          = V_i                 (i = 1..N, the panel centres)
//   w sum_j h'_j u_j       = w Q / (2 pi eps)    (the total charge; 0 for K >= 2)
// The last row is weighted by w = sqrt(N) / perimeter' so that it counts like the N rows above in
// ||b - A x|| (otherwise a small relative residual would leave the total charge loose).
#include <omp.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "electrostatics/geometry.hpp"
#include "electrostatics/gmres.hpp"
#include "electrostatics/operator.hpp"
#include "tree/threads.hpp"
#include "tree/timer.hpp"

namespace mlfma2d {

using es::PanelSet;

namespace {

constexpr double kTwoPi = 6.28318530717958647692;
// The dense method stores its matrix and LU: 2 (N + 1)^2 doubles, 1 GB at 8000.
constexpr std::size_t kMaxDensePanels = 8000;

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

void check_options(const ElectrostaticOptions& o) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!positive(o.eps_r)) throw InvalidInput("eps_r = " + num(o.eps_r) + ": expected > 0");
  if (!(o.tol > 0 && o.tol < 1))
    throw InvalidInput("tol = " + num(o.tol) + ": expected 0 < tol < 1");
  if (o.restart < 1)
    throw InvalidInput("restart = " + std::to_string(o.restart) + ": expected >= 1");
  if (o.max_iterations < 1) {
    throw InvalidInput("max_iterations = " + std::to_string(o.max_iterations) + ": expected >= 1");
  }
  if (o.preconditioner != "auto" && o.preconditioner != "block" && o.preconditioner != "diagonal" &&
      o.preconditioner != "none") {
    throw InvalidInput("preconditioner '" + o.preconditioner +
                       "': expected auto, block, diagonal or none");
  }
  if (o.block_size < 1)
    throw InvalidInput("block_size = " + std::to_string(o.block_size) + ": expected >= 1");
  if (o.block_overlap < 0) {
    throw InvalidInput("block_overlap = " + std::to_string(o.block_overlap) + ": expected >= 0");
  }
  if (o.method != "fmm" && o.method != "dense") {
    throw InvalidInput("method '" + o.method + "': expected fmm or dense");
  }
  if (o.quadrature_nodes < 1 || o.quadrature_nodes > 16) {
    throw InvalidInput("quadrature_nodes = " + std::to_string(o.quadrature_nodes) +
                       ": expected 1..16");
  }
  if (!positive(o.near_radius))
    throw InvalidInput("near_radius = " + num(o.near_radius) + ": expected > 0");
  if (!(std::isfinite(o.grading) && o.grading >= 1 && o.grading <= 10)) {
    throw InvalidInput("grading = " + num(o.grading) + ": expected 1..10");
  }
  if (!(o.corner_angle >= 0 && o.corner_angle <= 180)) {
    throw InvalidInput("corner_angle = " + num(o.corner_angle) + ": expected 0..180 degrees");
  }
  if (!(std::isfinite(o.panel_size) && o.panel_size >= 0)) {
    throw InvalidInput("panel_size = " + num(o.panel_size) + " m: expected > 0 (or 0: unused)");
  }
  if (o.panel_size > 0 && o.panels > 0) {
    throw InvalidInput("give the panel count or the panel size, not both");
  }
  if (!std::isfinite(o.total_charge)) throw InvalidInput("total_charge must be finite");
  if (o.fmm.eps != 0 && !(o.fmm.eps > 0 && o.fmm.eps < 1)) {
    throw InvalidInput("FMM eps = " + num(o.fmm.eps) + ": expected 0 < eps < 1 (or 0: from tol)");
  }
}

void check_conductors(const ElectrostaticOptions& o, int k) {
  if (k == 1) {
    if (o.reference != 0) {
      throw InvalidInput("reference conductor " + std::to_string(o.reference) +
                         " is out of range: there is 1 conductor (0)");
    }
    if (!o.potentials.empty()) {
      throw InvalidInput("one conductor: its total charge is given, not its potential (got " +
                         std::to_string(o.potentials.size()) + " potential(s))");
    }
    return;
  }
  if (o.reference < 0 || o.reference >= k) {
    throw InvalidInput("reference conductor " + std::to_string(o.reference) +
                       " is out of range: there are " + std::to_string(k) + " conductors (0.." +
                       std::to_string(k - 1) + ")");
  }
  if (!o.potentials.empty() && o.potentials.size() != static_cast<std::size_t>(k)) {
    throw InvalidInput(std::to_string(o.potentials.size()) + " potentials given for " +
                       std::to_string(k) + " conductors: give one per conductor");
  }
  for (std::size_t i = 0; i < o.potentials.size(); ++i) {
    if (!std::isfinite(o.potentials[i])) {
      throw InvalidInput("potential of conductor " + std::to_string(i) + " is not finite");
    }
  }
}

}  // namespace

struct ElectrostaticSolver::Impl {
  ElectrostaticOptions opt;
  PanelSet ps;
  Panels panels;
  int k = 0;       // conductors
  double eps = 0;  // permittivity, F/m
  double fmm_eps = 0;
  double row_weight = 1;       // w above
  int threads = 1;             // OpenMP team of every loop
  std::string preconditioner;  // the kind used (auto resolved)
  std::unique_ptr<es::SingleLayer> op;
  std::unique_ptr<es::Preconditioner> pre;
  std::unique_ptr<Eigen::MatrixXd> dense_a;  // the dense method's matrix (for residuals)
  std::unique_ptr<Eigen::PartialPivLU<Eigen::MatrixXd>> dense;  // and its LU
  ElectrostaticTimings timings;
  std::vector<double> phi;  // work: S u

  std::size_t n() const { return ps.size(); }

  // y = A x for the bordered system.
  void system(const double* x, double* y) {
    const std::size_t N = n();
    if (dense) {
      Eigen::Map<Eigen::VectorXd>(y, N + 1) =
          *dense_a * Eigen::Map<const Eigen::VectorXd>(x, N + 1);
      return;
    }
    op->apply(x, phi.data(), nullptr, nullptr);
    double charge = 0;
#pragma omp parallel for reduction(+ : charge) schedule(static) num_threads(threads) if (N >= 20000)
    for (std::size_t i = 0; i < N; ++i) {
      y[i] = -phi[i] + x[N];
      charge += ps.h[i] * x[i];
    }
    y[N] = row_weight * charge;
  }

  // Right-hand side: V_i at every panel of conductor i, and the weighted total charge.
  std::vector<double> rhs(const std::vector<double>& potentials, double charge_n) const {
    std::vector<double> b(n() + 1);
    for (std::size_t i = 0; i < n(); ++i) b[i] = potentials[ps.conductor[i]];
    b[n()] = row_weight * charge_n;
    return b;
  }

  SolveStats solve(const std::vector<double>& b, std::vector<double>* x) {
    SolveStats st;
    if (dense) {
      *x = std::vector<double>(n() + 1);
      Eigen::Map<Eigen::VectorXd>(x->data(), n() + 1) =
          dense->solve(Eigen::Map<const Eigen::VectorXd>(b.data(), n() + 1));
      st.residual = residual(b, *x);
      return st;
    }
    es::GmresOptions g;
    g.tol = opt.tol;
    g.restart = opt.restart;
    g.max_iterations = opt.max_iterations;
    g.threads = threads;
    const es::GmresResult r =
        es::gmres([this](const double* in, double* out) { system(in, out); },
                  [this](const double* in, double* out) { pre->apply(in, out); }, b, x, g);
    if (!r.converged) {
      throw RuntimeFailure("GMRES did not reach the relative residual " + num(opt.tol) + " in " +
                           std::to_string(r.iterations) + " iterations (residual " +
                           num(r.residual) + "); raise the iteration limit or the tolerance");
    }
    st.iterations = r.iterations;
    st.residual = r.residual;
    st.history = r.history;
    return st;
  }

  double residual(const std::vector<double>& b, const std::vector<double>& x) {
    std::vector<double> ax(n() + 1);
    system(x.data(), ax.data());
    double num2 = 0, den2 = 0;
    for (std::size_t i = 0; i <= n(); ++i) {
      num2 += (b[i] - ax[i]) * (b[i] - ax[i]);
      den2 += b[i] * b[i];
    }
    return den2 > 0 ? std::sqrt(num2 / den2) : std::sqrt(num2);
  }

  // Charges per conductor (C/m) of normalised densities u: Q = 2 pi eps sum h'_j u_j.
  std::vector<double> charges(const std::vector<double>& x) const {
    std::vector<double> q(k, 0.0);
    for (std::size_t j = 0; j < n(); ++j) q[ps.conductor[j]] += kTwoPi * eps * ps.h[j] * x[j];
    return q;
  }
};

ElectrostaticSolver::ElectrostaticSolver(const Contours& contours,
                                         const ElectrostaticOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  const double t0 = now_seconds();
  check_options(options);
  m.opt = options;
  timed(&m.timings.discretise, [&] {
    validate(contours);
    m.k = contours.conductors();
    check_conductors(options, m.k);
    m.ps = es::discretise(contours, options);
    m.panels = es::to_metres(m.ps);
  });
  m.eps = options.eps_r * kEpsilon0;
  m.threads = team_size(options.fmm.threads);
  m.row_weight = std::sqrt(double(m.n())) / m.ps.perimeter;
  m.fmm_eps =
      options.fmm.eps > 0 ? options.fmm.eps : std::min(1e-6, std::max(1e-14, options.tol / 100));
  if (options.method == "dense") {
    if (m.n() > kMaxDensePanels) {
      throw InvalidInput("method dense: " + std::to_string(m.n()) + " panels is more than the " +
                         std::to_string(kMaxDensePanels) + " it stores; use method fmm");
    }
    timed(&m.timings.preconditioner, [&] {  // the factorisation stands in for the set-up
      const std::size_t N = m.n();
      std::vector<double> s;
      es::dense_single_layer(m.ps, &s, m.threads);
      m.dense_a = std::make_unique<Eigen::MatrixXd>(N + 1, N + 1);
      Eigen::MatrixXd& a = *m.dense_a;
      a.topLeftCorner(N, N) = -Eigen::Map<Eigen::MatrixXd>(s.data(), N, N);
      a.block(0, N, N, 1).setOnes();
      for (std::size_t j = 0; j < N; ++j) a(N, j) = m.row_weight * m.ps.h[j];
      a(N, N) = 0;
      m.dense = std::make_unique<Eigen::PartialPivLU<Eigen::MatrixXd>>(a);
    });
  } else {
    Options fmm = options.fmm;
    fmm.eps = m.fmm_eps;
    m.op = std::make_unique<es::SingleLayer>(m.ps, m.ps.xm, m.ps.ym, fmm, options.quadrature_nodes,
                                             options.near_radius, false);
    m.timings.fmm_setup = m.op->seconds_setup_fmm;
    m.timings.near = m.op->seconds_setup_near;
    m.phi.resize(m.n());
    // auto: overlapping blocks pay on graded meshes; on uniform ones (smooth contours) none is
    // best: a dozen iterations from 1e4 to 1e6 panels (docs/solve.md).
    m.preconditioner = options.preconditioner != "auto" ? options.preconditioner
                       : m.ps.graded                    ? "block"
                                                        : "none";
    timed(&m.timings.preconditioner, [&] {
      m.pre = std::make_unique<es::Preconditioner>(m.ps, m.preconditioner, options.block_size,
                                                   options.block_overlap, m.row_weight, m.threads);
    });
  }
  m.timings.total = now_seconds() - t0;
}

ElectrostaticSolver::~ElectrostaticSolver() = default;
ElectrostaticSolver::ElectrostaticSolver(ElectrostaticSolver&&) noexcept = default;
ElectrostaticSolver& ElectrostaticSolver::operator=(ElectrostaticSolver&&) noexcept = default;

const Panels& ElectrostaticSolver::panels() const {
  return impl_->panels;
}
int ElectrostaticSolver::conductors() const {
  return impl_->k;
}
const ElectrostaticOptions& ElectrostaticSolver::options() const {
  return impl_->opt;
}
const ElectrostaticTimings& ElectrostaticSolver::timings() const {
  return impl_->timings;
}

ElectrostaticSolution ElectrostaticSolver::solve() {
  Impl& m = *impl_;
  const ElectrostaticOptions& o = m.opt;
  const std::size_t N = m.n();
  const double scale = m.ps.frame.scale;
  const double setup = m.timings.total;
  m.timings.solve = 0;  // this solve's own
  const std::size_t products0 = m.op ? m.op->products : 0;
  const double fmm0 = m.op ? m.op->seconds_fmm : 0, near0 = m.op ? m.op->seconds_near : 0;
  ElectrostaticSolution s;
  s.eps_r = o.eps_r;
  s.reference = o.reference;
  s.fmm_eps = m.op ? m.fmm_eps : 0;
  s.preconditioner = m.preconditioner;
  if (m.op) {
    s.fmm_stats = m.op->stats();
    s.fmm_backend = m.op->auto_choice().backend;
  }
  std::vector<double> x;  // the solution for `potentials`: u and c'
  std::vector<double> b;  // its right-hand side
  timed(&m.timings.solve, [&] {
    if (m.k == 1) {
      const double charge_n = o.total_charge / (kTwoPi * m.eps);
      b = m.rhs({0.0}, charge_n);
      s.solves.push_back(m.solve(b, &x));
      // Gauge: c = c' + log(L) Q / (2 pi eps) and V = 0; report V with c = 0 instead (phi +
      // Q/(2 pi eps) log|x| -> 0 at infinity): V = -c.
      s.potentials = {-(x[N] + std::log(scale) * charge_n)};
      s.offset = 0;
    } else {
      s.potentials = o.potentials;
      if (s.potentials.empty()) {
        s.potentials.assign(m.k, 1.0);
        s.potentials[o.reference] = 0;
      }
      const double vref = s.potentials[o.reference];
      std::vector<double> v(m.k);
      for (int i = 0; i < m.k; ++i) v[i] = s.potentials[i] - vref;
      if (o.capacitance) {
        // One unit-potential solve per conductor but the reference; sigma for the given
        // potentials by superposition (a constant added to every V moves c only).
        x.assign(N + 1, 0.0);
        for (int i = 0; i < m.k; ++i) {
          if (i != o.reference) s.capacitance_conductors.push_back(i);
        }
        const std::size_t kc = s.capacitance_conductors.size();
        s.capacitance.assign(kc, std::vector<double>(kc, 0.0));
        for (std::size_t col = 0; col < kc; ++col) {
          std::vector<double> unit(m.k, 0.0), xi;
          unit[s.capacitance_conductors[col]] = 1;
          s.solves.push_back(m.solve(m.rhs(unit, 0), &xi));
          const std::vector<double> q = m.charges(xi);
          for (std::size_t row = 0; row < kc; ++row)
            s.capacitance[row][col] = q[s.capacitance_conductors[row]];
          const double vi = v[s.capacitance_conductors[col]];
          for (std::size_t j = 0; j <= N; ++j) x[j] += vi * xi[j];
        }
        x[N] += vref;
        b = m.rhs(s.potentials, 0);
      } else {
        b = m.rhs(s.potentials, 0);
        s.solves.push_back(m.solve(b, &x));
      }
      s.offset = x[N];  // Q = 0: c = c'
    }
    s.residual = m.residual(b, x);
  });
  for (const SolveStats& st : s.solves) s.iterations += st.iterations;
  s.panels = m.panels;
  s.sigma.resize(N);
  for (std::size_t j = 0; j < N; ++j) s.sigma[j] = kTwoPi * m.eps * x[j] / scale;
  s.charge = m.charges(x);
  ElectrostaticTimings& t = m.timings;
  if (m.op) {
    t.products = m.op->products - products0;
    const double count = t.products > 0 ? double(t.products) : 1.0;
    t.product_fmm = (m.op->seconds_fmm - fmm0) / count;
    t.product_near = (m.op->seconds_near - near0) / count;
    t.product = t.product_fmm + t.product_near;
  }
  t.total = setup + t.solve;
  s.timings = t;
  t.total = setup;  // the next solve adds its own
  return s;
}

std::vector<double> ElectrostaticSolver::potential_at_panels(const std::vector<double>& sigma) {
  Impl& m = *impl_;
  const std::size_t N = m.n();
  if (sigma.size() != N) {
    throw InvalidInput("potential_at_panels: " + std::to_string(sigma.size()) + " densities for " +
                       std::to_string(N) + " panels");
  }
  // u = sigma L / (2 pi eps) in normalised coordinates; the bordered system with c = 0 gives
  // -(S u), and phi = -(S u) - log(L) Q / (2 pi eps) as in evaluate().
  const double scale = m.ps.frame.scale;
  std::vector<double> u(N + 1, 0.0), phi(N + 1);
  double total = 0;
  for (std::size_t j = 0; j < N; ++j) {
    if (!std::isfinite(sigma[j])) {
      throw InvalidInput("potential_at_panels: sigma[" + std::to_string(j) + "] is not finite");
    }
    u[j] = sigma[j] * scale / (kTwoPi * m.eps);
    total += u[j] * m.ps.h[j];
  }
  m.system(u.data(), phi.data());
  phi.resize(N);
  const double shift = std::log(scale) * total;
  for (double& v : phi) v -= shift;
  return phi;
}

FieldAtTargets ElectrostaticSolver::evaluate(const ElectrostaticSolution& s,
                                             const std::vector<double>& tx,
                                             const std::vector<double>& ty) {
  Impl& m = *impl_;
  const std::size_t N = m.n();
  if (tx.size() != ty.size()) throw InvalidInput("targets: x and y differ in length");
  if (s.sigma.size() != N) {
    throw InvalidInput("evaluate: the solution has " + std::to_string(s.sigma.size()) +
                       " panels, this solver " + std::to_string(N));
  }
  FieldAtTargets f;
  if (tx.empty()) return f;
  const es::Frame& fr = m.ps.frame;
  std::vector<double> x(tx.size()), y(ty.size());
  for (std::size_t i = 0; i < tx.size(); ++i) {
    if (!std::isfinite(tx[i]) || !std::isfinite(ty[i])) {
      throw InvalidInput("target " + std::to_string(i) + " is not finite");
    }
    x[i] = (tx[i] - fr.cx) / fr.scale;
    y[i] = (ty[i] - fr.cy) / fr.scale;
  }
  Options fmm = m.opt.fmm;
  fmm.eps = m.fmm_eps;
  es::SingleLayer op(m.ps, x, y, fmm, m.opt.quadrature_nodes, m.opt.near_radius, true);
  std::vector<double> u(N);
  double total = 0;  // Q / (2 pi eps)
  for (std::size_t j = 0; j < N; ++j) {
    u[j] = s.sigma[j] * fr.scale / (kTwoPi * m.eps);
    total += u[j] * m.ps.h[j];
  }
  f.potential.resize(x.size());
  f.field_x.resize(x.size());
  f.field_y.resize(x.size());
  op.apply(u.data(), f.potential.data(), f.field_x.data(), f.field_y.data());
  // phi = -(S u) - log(L) Q / (2 pi eps) + c;  E = -grad phi = grad'(S u) / L.
  const double shift = s.offset - std::log(fr.scale) * total;
  for (std::size_t i = 0; i < x.size(); ++i) {
    f.potential[i] = -f.potential[i] + shift;
    f.field_x[i] /= fr.scale;
    f.field_y[i] /= fr.scale;
    if (!std::isfinite(f.field_x[i]) || !std::isfinite(f.field_y[i])) {
      throw InvalidInput("target " + std::to_string(i) + " (" + num(tx[i]) + ", " + num(ty[i]) +
                         ") lies on a panel end point, where the field is infinite");
    }
  }
  return f;
}

ElectrostaticSolution solve_conductors(const Contours& contours,
                                       const ElectrostaticOptions& options) {
  return ElectrostaticSolver(contours, options).solve();
}

}  // namespace mlfma2d
