// The electrostatic solve: the right-hand sides on one mesh, the physical quantities, and the
// refinement to an accuracy target (docs/math.md sections 8.2-8.3 and 8.11). The system on one
// mesh is electrostatics/mesh.hpp.
#include <algorithm>
#include <cmath>
#include <string>

#include "electrostatics/geometry.hpp"
#include "electrostatics/lines.hpp"
#include "electrostatics/mesh.hpp"
#include "electrostatics/operator.hpp"
#include "electrostatics/ranks.hpp"
#include "runtime/threads.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d {

using es::Mesh;
using es::num;
using es::PanelSet;

namespace {

constexpr double kTwoPi = 2 * 3.14159265358979323846;

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
  if (!(std::isfinite(o.accuracy) && o.accuracy >= 0 && o.accuracy < 1)) {
    throw InvalidInput("accuracy = " + num(o.accuracy) +
                       ": expected 0 < accuracy < 1 (relative), or 0: one mesh, no estimate");
  }
  if (o.max_panels < 1) throw InvalidInput("max_panels must be >= 1");
  if (o.ground_plane && !std::isfinite(o.ground_plane_y)) {
    throw InvalidInput("ground_plane_y = " + num(o.ground_plane_y) + ": expected a finite y (m)");
  }
}

void check_conductors(const ElectrostaticOptions& o, int k) {
  if (o.ground_plane) {
    if (o.reference != 0) {
      throw InvalidInput("reference conductor " + std::to_string(o.reference) +
                         ": over a ground plane the plane is the reference; every conductor is " +
                         "a signal conductor");
    }
  } else if (k == 1) {
    if (o.reference != 0) {
      throw InvalidInput("reference conductor " + std::to_string(o.reference) +
                         " is out of range: there is 1 conductor (0)");
    }
    if (!o.potentials.empty()) {
      throw InvalidInput("one conductor: its total charge is given, not its potential (got " +
                         std::to_string(o.potentials.size()) + " potential(s)); over a " +
                         "ground plane it has a potential");
    }
    return;
  } else if (o.reference < 0 || o.reference >= k) {
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

// The figures an accuracy-driven solve watches: C (and C0) relative to their diagonals, else the
// conductors' potentials (one conductor) or charges, relative to their largest.
double change(const ElectrostaticSolution& a, const ElectrostaticSolution& b) {
  if (!a.capacitance.empty()) {
    return std::max(capacitance_difference(a.capacitance, b.capacitance),
                    capacitance_difference(a.line.capacitance_vacuum, b.line.capacitance_vacuum));
  }
  double worst = 0;
  const std::vector<double>& p = a.charge.size() == 1 ? a.potentials : a.charge;
  const std::vector<double>& q = a.charge.size() == 1 ? b.potentials : b.charge;
  double big = 0;
  for (double v : q) big = std::max(big, std::abs(v));
  for (std::size_t i = 0; i < p.size(); ++i)
    worst = std::max(worst, std::abs(p[i] - q[i]) / (big > 0 ? big : 1.0));
  return worst;
}

// An operator's products, evaluations and their seconds so far (nothing without one: dense).
struct Work {
  std::size_t products = 0, evaluations = 0;
  double fmm = 0, near = 0;
  explicit Work(const es::SingleLayer* op = nullptr) {
    if (!op) return;
    products = op->products;
    evaluations = op->evaluations;
    fmm = op->seconds_fmm;
    near = op->seconds_near;
  }
  Work& operator+=(const Work& o) {
    products += o.products;
    evaluations += o.evaluations;
    fmm += o.fmm;
    near += o.near;
    return *this;
  }
  Work operator-(const Work& o) const {
    Work d = *this;
    d.products -= o.products;
    d.evaluations -= o.evaluations;
    d.fmm -= o.fmm;
    d.near -= o.near;
    return d;
  }
};

}  // namespace

double capacitance_difference(const std::vector<std::vector<double>>& a,
                              const std::vector<std::vector<double>>& reference) {
  if (a.size() != reference.size()) {
    throw InvalidInput("capacitance_difference: a is " + std::to_string(a.size()) + " x " +
                       std::to_string(a.size()) + ", the reference " +
                       std::to_string(reference.size()) + " x " + std::to_string(reference.size()));
  }
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < a.size(); ++j) {
      const double d = std::sqrt(std::abs(reference[i][i] * reference[j][j]));
      worst = std::max(worst, std::abs(a[i][j] - reference[i][j]) / d);
    }
  }
  return worst;
}

struct ElectrostaticSolver::Impl {
  ElectrostaticOptions opt;
  Contours contours;
  int k = 0;  // conductors
  double fmm_eps = 0;
  int threads = 1;
  int level = 0;
  std::unique_ptr<Mesh> mesh;
  Panels panels;
  ElectrostaticTimings timings;
  std::shared_ptr<const SolveRanks> ranks = es::one_process();

  void build(int new_level) {
    level = new_level;
    mesh.reset();  // the old mesh's memory first
    mesh = std::make_unique<Mesh>(contours, opt, level, false, fmm_eps, threads, block(), ranks);
    panels = es::to_metres(mesh->ps);
    const ElectrostaticTimings& s = mesh->setup;
    timings.discretise = s.discretise;
    timings.near = s.near;
    timings.fmm_setup = s.fmm_setup;
    timings.preconditioner = s.preconditioner;
  }

  std::vector<int> signals() const {
    std::vector<int> out;
    for (int i = 0; i < k; ++i) {
      if (opt.ground_plane || i != opt.reference) out.push_back(i);
    }
    return k == 1 && !opt.ground_plane ? std::vector<int>{} : out;
  }

  // The right-hand sides one product takes: every signal conductor's when C is solved in one
  // block (two or more, the fast method), else one.
  int block() const {
    const std::size_t kc = signals().size();
    const bool batched = opt.batched && opt.capacitance && opt.method == "fmm" && kc >= 2;
    return batched ? static_cast<int>(kc) : 1;
  }

  std::string label(const char* what, std::size_t rhs, std::size_t count) const {
    return std::string(what) + " mesh " + std::to_string(level) + " (" + std::to_string(mesh->n()) +
           " panels), right-hand side " + std::to_string(rhs + 1) + "/" + std::to_string(count);
  }

  // The Maxwell matrix of the signal conductors on mesh m: one unit-potential solve each, all in
  // one block when the mesh takes them together.
  std::vector<std::vector<double>> capacitance(Mesh& m, const std::vector<int>& sig,
                                               std::vector<SolveStats>* stats,
                                               std::vector<std::vector<double>>* unit_x,
                                               const char* what) {
    const std::size_t kc = sig.size();
    std::vector<std::vector<double>> b, x(kc), q;
    for (std::size_t col = 0; col < kc; ++col) {
      std::vector<double> unit(k, 0.0);
      unit[sig[col]] = 1;
      b.push_back(m.rhs(unit, 0));
    }
    if (m.block > 1) {
      const std::string name = std::string(what) + " mesh " + std::to_string(level) + " (" +
                               std::to_string(m.n()) + " panels), right-hand sides 1-" +
                               std::to_string(kc) + " in one block";
      const std::vector<SolveStats> st = m.solve_block(b, &x, opt, name);
      stats->insert(stats->end(), st.begin(), st.end());
      q = m.free_charges_block(x, k);
      m.release_block();  // the memory of a second FMM, before the vacuum mesh is made
    } else {
      for (std::size_t col = 0; col < kc; ++col) {
        stats->push_back(m.solve(b[col], &x[col], opt, label(what, col, kc)));
        q.push_back(m.free_charges(x[col], k));
      }
    }
    std::vector<std::vector<double>> c(kc, std::vector<double>(kc, 0.0));
    for (std::size_t col = 0; col < kc; ++col) {
      for (std::size_t row = 0; row < kc; ++row) c[row][col] = q[col][sig[row]];
    }
    if (unit_x) *unit_x = std::move(x);
    return c;
  }

  ElectrostaticSolution solve_mesh();
};

ElectrostaticSolver::ElectrostaticSolver(const Contours& contours,
                                         const ElectrostaticOptions& options)
    : ElectrostaticSolver(contours, options, nullptr) {}

ElectrostaticSolver::ElectrostaticSolver(const Contours& contours,
                                         const ElectrostaticOptions& options,
                                         std::shared_ptr<const SolveRanks> ranks)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  if (ranks) m.ranks = std::move(ranks);
  const double t0 = now_seconds();
  check_options(options);
  m.opt = options;
  // Tighter solves than the accuracy asked: their error must not show in the estimate.
  if (options.accuracy > 0) m.opt.tol = std::min(options.tol, options.accuracy / 100);
  timed(&m.timings.discretise, [&] {
    validate(contours, options.ground_plane ? options.ground_plane_y : std::nan(""));
    m.k = contours.conductors();
    check_conductors(options, m.k);
  });
  const double validation = m.timings.discretise;
  m.contours = contours;
  m.threads = team_size(options.fmm.threads);
  m.fmm_eps =
      options.fmm.eps > 0 ? options.fmm.eps : std::min(1e-6, std::max(1e-14, m.opt.tol / 100));
  m.build(0);
  m.timings.discretise += validation;
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

ElectrostaticSolution ElectrostaticSolver::Impl::solve_mesh() {
  const ElectrostaticOptions& o = opt;
  Mesh& m = *mesh;
  const std::size_t N = m.n();
  const double scale = m.ps.frame.scale;
  const double t_solve = now_seconds();
  // The products of this solve: the mesh's (which earlier calls may have used) and the vacuum's.
  const Work before(m.op.get());
  Work vacuum_work;
  ElectrostaticSolution s;
  s.eps_r = o.eps_r;
  s.ground_plane = o.ground_plane;
  s.ground_plane_y = o.ground_plane_y;
  s.reference = o.ground_plane ? -1 : o.reference;
  s.fmm_eps = m.op ? fmm_eps : 0;
  s.preconditioner = m.op ? m.preconditioner : "none";
  s.tol = o.tol;
  s.batched = m.block > 1;
  if (m.op) {
    s.fmm_stats = m.op->stats();
    s.fmm_backend = m.op->auto_choice().backend;
  }
  std::vector<double> x;  // the solution for `potentials`
  std::vector<double> b;  // its right-hand side
  const std::vector<int> sig = signals();
  if (k == 1 && !o.ground_plane) {
    const double charge_n = o.total_charge / (kTwoPi * kEpsilon0 * o.eps_r);
    b = m.rhs({0.0}, charge_n);
    s.solves.push_back(m.solve(b, &x, o, label("solve", 0, 1)));
    // Gauge: c = c' + log(L) Q / (2 pi eps) and V = 0; report V with c = 0 instead (phi +
    // Q/(2 pi eps) log|x| -> 0 at infinity): V = -c.
    s.potentials = {-(x[N] + std::log(scale) * charge_n)};
    s.offset = 0;
  } else {
    s.potentials = o.potentials;
    if (s.potentials.empty()) {
      s.potentials.assign(k, 1.0);
      if (!o.ground_plane) s.potentials[o.reference] = 0;
    }
    const double vref = o.ground_plane ? 0.0 : s.potentials[o.reference];
    std::vector<double> v(k);
    for (int i = 0; i < k; ++i) v[i] = s.potentials[i] - vref;
    if (o.capacitance) {
      // One unit-potential solve per signal conductor; sigma for the given potentials by
      // superposition (a constant added to every V moves c only).
      std::vector<std::vector<double>> unit_x;
      s.capacitance_conductors = sig;
      s.capacitance = capacitance(m, sig, &s.solves, &unit_x, "solve");
      x.assign(m.size(), 0.0);
      for (std::size_t col = 0; col < sig.size(); ++col) {
        for (std::size_t j = 0; j < m.size(); ++j) x[j] += v[sig[col]] * unit_x[col][j];
      }
      if (m.bordered) x[N] += vref;
      b = m.rhs(s.potentials, 0);
    } else {
      b = m.rhs(s.potentials, 0);
      s.solves.push_back(m.solve(b, &x, o, label("solve", 0, 1)));
    }
    s.offset = m.bordered ? x[N] : 0.0;  // Q = 0: c = c'
  }
  s.residual = m.residual(b, x);
  s.panels = panels;
  s.sigma_total.resize(N);
  for (std::size_t j = 0; j < N; ++j) s.sigma_total[j] = kTwoPi * kEpsilon0 * x[j] / scale;
  s.charge = m.free_charges(x, k, &s.sigma);
  // C0: the same conductors in vacuum. Without regions it is C / eps_b exactly; with them the
  // conductors' panels alone (interfaces dropped) are solved again.
  if (!s.capacitance.empty()) {
    std::vector<std::vector<double>> c0 = s.capacitance;
    if (contours.has_dielectrics()) {
      Mesh vacuum(contours, opt, level, true, fmm_eps, threads, block(), ranks);
      c0 = capacitance(vacuum, sig, &s.solves, nullptr, "vacuum (C0)");
      vacuum_work = Work(vacuum.op.get());
    } else {
      for (auto& row : c0) {
        for (double& e : row) e /= o.eps_r;
      }
    }
    s.line = es::line_parameters(s.capacitance, c0);
  }
  for (const SolveStats& st : s.solves) s.iterations += st.iterations;
  ElectrostaticTimings& t = timings;
  t.solve = now_seconds() - t_solve;
  Work work = Work(m.op.get()) - before;
  work += vacuum_work;
  t.products = work.products;
  t.evaluations = work.evaluations;
  const double count = t.products > 0 ? double(t.products) : 1.0;
  t.product_fmm = work.fmm / count;
  t.product_near = work.near / count;
  t.product = t.product_fmm + t.product_near;
  return s;
}

ElectrostaticSolution ElectrostaticSolver::solve() {
  Impl& m = *impl_;
  const double setup = m.timings.total;
  const double t0 = now_seconds();
  ElectrostaticSolution s = m.solve_mesh();
  s.meshes.push_back({m.mesh->n(), std::nan(""), now_seconds() - t0, s.iterations});
  if (m.opt.accuracy > 0) {
    // Every panel count doubled until the change of C between two meshes, taken to the limit of
    // the sequence the changes make, is below the target (docs/solve.md, "Accuracy").
    s.accuracy_target = m.opt.accuracy;
    std::vector<double> changes;
    for (;;) {
      const std::size_t next = 2 * m.mesh->n();
      if (next > m.opt.max_panels) break;
      const double t1 = now_seconds();
      m.build(m.level + 1);
      ElectrostaticSolution finer = m.solve_mesh();
      changes.push_back(change(finer, s));
      std::vector<MeshLevel> meshes = std::move(s.meshes);
      meshes.push_back({m.mesh->n(), changes.back(), now_seconds() - t1, finer.iterations});
      s = std::move(finer);
      s.meshes = std::move(meshes);
      s.accuracy_target = m.opt.accuracy;
      if (changes.size() < 2) continue;
      // With the changes falling by r < 1 a mesh, the error left after the last is at most
      // change r / (1 - r); never less than the change itself. r near 1: no estimate yet.
      const double r = changes.back() / changes[changes.size() - 2];
      if (!(r < 0.8)) {
        s.accuracy_estimate = std::nan("");
        continue;
      }
      s.accuracy_estimate = changes.back() * std::max(1.0, r / (1 - r));
      if (s.accuracy_estimate <= m.opt.accuracy) break;
    }
    // The mesh limit reached: the last change is what is known.
    if (std::isnan(s.accuracy_estimate) && !changes.empty()) {
      s.accuracy_estimate = changes.back();
      if (changes.size() >= 2)
        s.accuracy_estimate = std::max(changes.back(), changes[changes.size() - 2]);
    }
    s.accuracy_met = s.accuracy_estimate <= m.opt.accuracy;
  }
  m.timings.total = setup + (now_seconds() - t0);
  s.timings = m.timings;
  m.timings.total = setup;
  return s;
}

std::vector<double> ElectrostaticSolver::potential_at_panels(const std::vector<double>& sigma) {
  Impl& m = *impl_;
  Mesh& mesh = *m.mesh;
  const std::size_t N = mesh.n();
  if (sigma.size() != N) {
    throw InvalidInput("potential_at_panels: " + std::to_string(sigma.size()) + " densities for " +
                       std::to_string(N) + " panels");
  }
  // u = sigma L / (2 pi eps) in normalised coordinates (eps of the background: the homogeneous
  // problem's convention); -(S u) by the operator, and phi = -(S u) - log(L) Q / (2 pi eps).
  const double scale = mesh.ps.frame.scale;
  std::vector<double> u(N), phi(N);
  double total = 0;
  for (std::size_t j = 0; j < N; ++j) {
    if (!std::isfinite(sigma[j])) {
      throw InvalidInput("potential_at_panels: sigma[" + std::to_string(j) + "] is not finite");
    }
    u[j] = sigma[j] * scale / (kTwoPi * kEpsilon0 * m.opt.eps_r);
    total += u[j] * mesh.ps.h[j];
  }
  if (mesh.dense) {  // S u entry by entry, as the dense matrix has it
    const PanelSet& ps = mesh.ps;
    for (std::size_t i = 0; i < N; ++i) {
      double v = 0;
      for (std::size_t j = 0; j < N; ++j) {
        double e = panel_log_integral(ps.seg[j], ps.xm[i], ps.ym[i]);
        if (ps.mirror) e -= panel_log_integral(es::column_segment(ps, j + N), ps.xm[i], ps.ym[i]);
        v += e * u[j];
      }
      phi[i] = v;
    }
  } else {  // this rank's panels, then every panel's from every rank
    std::vector<double> mine(mesh.here.count + 1);
    mesh.op->apply(u.data(), mine.data(), nullptr, nullptr);
    phi = mesh.ranks->gather(mine.data(), mesh.here.count);
  }
  const double shift = mesh.ps.mirror ? 0.0 : std::log(scale) * total;
  for (double& v : phi) v = -v - shift;
  return phi;
}

FieldAtTargets ElectrostaticSolver::evaluate(const ElectrostaticSolution& s,
                                             const std::vector<double>& tx,
                                             const std::vector<double>& ty) {
  Impl& m = *impl_;
  const PanelSet& ps = m.mesh->ps;
  const std::size_t N = ps.size();
  if (tx.size() != ty.size()) throw InvalidInput("targets: x and y differ in length");
  const bool total = !s.sigma_total.empty();
  if ((total ? s.sigma_total.size() : s.sigma.size()) != N) {
    throw InvalidInput("evaluate: the solution has " +
                       std::to_string(total ? s.sigma_total.size() : s.sigma.size()) +
                       " panels, this solver " + std::to_string(N));
  }
  FieldAtTargets f;
  if (tx.empty()) return f;
  const es::Frame& fr = ps.frame;
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
  // Over ranks each evaluates its part of the targets; every rank gets all of them.
  const SolveRanks& ranks = *m.mesh->ranks;
  const PointRange part = ranks.share(x.size());
  const auto from = std::ptrdiff_t(part.first), to = std::ptrdiff_t(part.first + part.count);
  const std::vector<double> px(x.begin() + from, x.begin() + to);
  const std::vector<double> py(y.begin() + from, y.begin() + to);
  es::SingleLayer op(ps, px, py, fmm, m.opt.quadrature_nodes, m.opt.near_radius, true, ranks,
                     m.mesh->here);
  std::vector<double> u(N);
  double sum = 0;  // T
  for (std::size_t j = 0; j < N; ++j) {
    u[j] = total ? s.sigma_total[j] * fr.scale / (kTwoPi * kEpsilon0)
                 : s.sigma[j] * fr.scale / (kTwoPi * kEpsilon0 * s.eps_r);
    sum += u[j] * ps.h[j];
  }
  std::vector<double> phi(part.count + 1), ex(part.count + 1), ey(part.count + 1);
  op.apply(u.data(), phi.data(), ex.data(), ey.data());
  f.potential = ranks.gather(phi.data(), part.count);
  f.field_x = ranks.gather(ex.data(), part.count);
  f.field_y = ranks.gather(ey.data(), part.count);
  // phi = -(S u) - log(L) T + c;  E = -grad phi = grad'(S u) / L. At a panel's end point the
  // potential is the finite limit and the field is infinite: NaN, counted.
  const double shift = s.offset - (ps.mirror ? 0.0 : std::log(fr.scale) * sum);
  const double nan = std::nan("");
  for (std::size_t i = 0; i < x.size(); ++i) {
    f.potential[i] = -f.potential[i] + shift;
    f.field_x[i] /= fr.scale;
    f.field_y[i] /= fr.scale;
    if (!std::isfinite(f.field_x[i]) || !std::isfinite(f.field_y[i])) {
      f.field_x[i] = f.field_y[i] = nan;
      ++f.undefined_field;
    }
  }
  return f;
}

ElectrostaticSolution solve_conductors(const Contours& contours,
                                       const ElectrostaticOptions& options) {
  return ElectrostaticSolver(contours, options).solve();
}

}  // namespace mlfma2d
