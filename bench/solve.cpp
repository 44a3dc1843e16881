// The measurements behind docs/solve.md: convergence to the closed forms, the fast product's
// accuracy against the analytic matrix, the preconditioners' iteration counts.
//   mlfma2d_bench_solve convergence      closed forms vs panels, observed order
//   mlfma2d_bench_solve quadrature       product error vs Gauss nodes and near radius
//   mlfma2d_bench_solve preconditioners  GMRES iterations per preconditioner and size
// Public API only: the operator through ElectrostaticSolver::potential_at_panels.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "mlfma2d/electrostatics.hpp"

using namespace mlfma2d;

namespace {

// The observed order log2(e_coarse / e_fine) of two successive halvings, "" for the first.
std::string order(double coarse, double fine) {
  char text[16] = "";
  if (coarse != 0) std::snprintf(text, sizeof text, "%.2f", std::log2(coarse / fine));
  return text;
}

// A named shape solved with `panels` panels, grading q, to `tol`.
ElectrostaticSolution solved(const char* shape, const ContourShape& p, std::size_t panels,
                             double grading, double tol) {
  ElectrostaticOptions o;
  o.panels = panels;
  o.grading = grading;
  o.tol = tol;
  return solve_conductors(generate_contours(shape, p), o);
}

void convergence() {
  const ContourShape p;
  struct Case {
    const char* shape;
    double exact;
  };
  const Case cases[] = {{"coax", coax_capacitance(p.a, p.b)},
                        {"eccentric-coax", eccentric_coax_capacitance(p.a, p.b, p.e)},
                        {"two-wire", two_wire_capacitance(p.a, p.d)}};
  for (const Case& c : cases) {
    std::printf("\n%s: C = %.12e F/m (closed form)\n", c.shape, c.exact);
    std::printf("%10s %10s %14s %8s %8s %10s\n", "vertices", "panels", "rel. error", "order", "its",
                "seconds");
    double previous = 0;
    for (std::size_t n = 256; n <= 32768; n *= 2) {
      ContourShape q = p;
      q.vertices = n;
      const ElectrostaticSolution s = solved(c.shape, q, 2 * n, 3, 1e-12);
      const double err = s.capacitance[0][0] / c.exact - 1;
      std::printf("%10zu %10zu %14.3e %8s %8d %10.2f\n", n, s.panels.size(), err,
                  order(previous, err).c_str(), s.iterations, s.timings.total);
      previous = err;
    }
  }
  // The lone strip: its potential at charge Q (c = 0) is -Q/(2 pi eps0) log(w/4); sigma away from
  // the edges against Q / (pi sqrt((w/2)^2 - x^2)).
  for (const double grading : {2.0, 3.0}) {
    std::printf("\nstrip, grading %.0f: potential (log capacity) and sigma for |x| < 0.4 w\n",
                grading);
    std::printf("%10s %14s %8s %16s\n", "panels", "V rel. error", "order", "sigma max rel.");
    double previous = 0;
    for (std::size_t n = 64; n <= 4096; n *= 2) {
      const ElectrostaticSolution s = solved("strip", p, n, grading, 1e-13);
      const double q = ElectrostaticOptions().total_charge;
      const double v = -q / (2 * M_PI * kEpsilon0) * std::log(p.w / 4);
      const double err = s.potentials[0] / v - 1;
      double worst = 0;
      for (std::size_t j = 0; j < n; ++j) {
        if (std::abs(s.panels.x[j]) < 0.4 * p.w) {
          worst = std::max(worst, std::abs(s.sigma[j] / strip_sigma(s.panels.x[j], p.w, q) - 1));
        }
      }
      std::printf("%10zu %14.3e %8s %16.3e\n", n, err, order(previous, err).c_str(), worst);
      previous = err;
    }
  }
  // The microstrip has no closed form: differences of successive refinements.
  for (const double grading : {2.0, 3.0}) {
    std::printf("\nmicrostrip, grading %.0f: C11 (self-convergence)\n", grading);
    std::printf("%10s %20s %14s %8s\n", "panels", "C11 (F/m)", "change", "order");
    double c_prev = 0, d_prev = 0;
    for (std::size_t n = 750; n <= 96000; n *= 2) {
      const ElectrostaticSolution s = solved("microstrip", p, n, grading, 1e-12);
      const double c = s.capacitance[0][0], d = c_prev != 0 ? c - c_prev : 0;
      char change[32] = "";
      if (c_prev != 0) std::snprintf(change, sizeof change, "%.3e", d / c);
      std::printf("%10zu %20.12e %14s %8s\n", n, c, change, order(d_prev, d).c_str());
      c_prev = c;
      d_prev = d;
    }
  }
}

void quadrature() {
  std::printf(
      "relative L2 difference of the fast product (FMM eps 1e-14) from the analytic "
      "matrix\n%-12s %6s %6s %12s %12s %12s\n",
      "geometry", "nodes", "radius", "ones", "random", "oscillating");
  for (const char* shape : {"two-wire", "microstrip"}) {
    ContourShape p;
    p.vertices = 1024;
    const Contours c = generate_contours(shape, p);
    ElectrostaticOptions o;
    o.panels = shape == std::string("two-wire") ? 3000 : 2400;
    // The same operator twice: every entry analytic (dense), and the fast product.
    ElectrostaticOptions d = o;
    d.method = "dense";
    ElectrostaticSolver dense(c, d);
    const std::size_t n = dense.panels().size();
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<std::vector<double>> vectors(3, std::vector<double>(n)), exact;
    for (std::size_t j = 0; j < n; ++j) {
      vectors[0][j] = 1;
      vectors[1][j] = u(rng);
      vectors[2][j] = j % 2 ? 1 : -1;  // the highest frequency a mesh holds
    }
    for (const auto& v : vectors) exact.push_back(dense.potential_at_panels(v));
    for (const int nodes : {2, 3, 4, 6, 8}) {
      for (const double radius : {2.0, 4.0, 6.0, 12.0}) {
        ElectrostaticOptions f = o;
        f.quadrature_nodes = nodes;
        f.near_radius = radius;
        f.fmm.eps = 1e-14;
        f.preconditioner = "none";  // not used here
        ElectrostaticSolver fast(c, f);
        std::printf("%-12s %6d %6.0f", shape, nodes, radius);
        for (std::size_t k = 0; k < vectors.size(); ++k) {
          const std::vector<double> phi = fast.potential_at_panels(vectors[k]);
          double num = 0, den = 0;
          for (std::size_t i = 0; i < n; ++i) {
            num += (phi[i] - exact[k][i]) * (phi[i] - exact[k][i]);
            den += exact[k][i] * exact[k][i];
          }
          std::printf(" %12.2e", std::sqrt(num / den));
        }
        std::printf("\n");
      }
    }
  }
}

void preconditioners() {
  std::printf(
      "GMRES iterations to tol 1e-8 (restart 50), per right-hand side\n%-12s %8s %8s %8s "
      "%8s %10s\n",
      "geometry", "panels", "none", "diagonal", "blocks", "RAS");
  for (const char* shape : {"two-wire", "microstrip"}) {
    for (const std::size_t n : {std::size_t(10000), std::size_t(100000)}) {
      ContourShape p;
      p.vertices = n / 2;  // two-wire: one panel per side
      const Contours c = generate_contours(shape, p);
      std::printf("%-12s %8zu", shape, n);
      struct Kind {
        const char* name;
        int overlap;
      };
      for (const Kind k :
           {Kind{"none", 0}, Kind{"diagonal", 0}, Kind{"block", 0}, Kind{"block", 8}}) {
        ElectrostaticOptions o;
        o.panels = n;
        o.tol = 1e-8;
        o.preconditioner = k.name;
        o.block_overlap = k.overlap;
        o.max_iterations = 400;
        try {
          const ElectrostaticSolution s = solve_conductors(c, o);
          std::printf(" %8d", s.solves[0].iterations);
        } catch (const RuntimeFailure&) {
          std::printf(" %8s", ">400");
        }
      }
      std::printf("\n");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "convergence") {
    convergence();
  } else if (what == "quadrature") {
    quadrature();
  } else if (what == "preconditioners") {
    preconditioners();
  } else {
    std::fprintf(stderr, "usage: mlfma2d_bench_solve convergence|quadrature|preconditioners\n");
    return 2;
  }
  return 0;
}
