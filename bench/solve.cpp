// The measurements behind docs/solve.md: convergence to the closed forms, the fast product's
// accuracy against the analytic matrix, the preconditioners' iteration counts.
//   mlfma2d_bench_solve convergence      closed forms vs panels, observed order
//   mlfma2d_bench_solve quadrature       product error vs Gauss nodes and near radius
//   mlfma2d_bench_solve preconditioners  GMRES iterations per preconditioner and size
// The transmission-line solver (wave 3), each with [--backend NAME] [--json FILE]:
//   mlfma2d_bench_solve microstrip       microstrip over the ground plane vs Hammerstad-Jensen
//   mlfma2d_bench_solve estimates        the accuracy estimate vs the true error, exact cases
//   mlfma2d_bench_solve iterations       GMRES iterations vs panels, auto and none
//   mlfma2d_bench_solve batched          C of K traces as one block against K solves
//                                        [--traces K,K] [--panels N,N] [--repeats R]
//                                        [--threads T]
//                                        (bench/solve_batched.cpp)
// Public API only: the operator through ElectrostaticSolver::potential_at_panels.
#include "solve.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/io.hpp"

using namespace mlfma2d;
using json = nlohmann::json;

namespace mlfma2d::bench_solve {

void save(const Args& a, const json& j) {
  if (a.json_path.empty()) return;
  try {
    write_text_file(a.json_path, j.dump(2) + "\n");
  } catch (const Error& e) {
    std::fprintf(stderr, "mlfma2d_bench_solve: %s\n", e.what());
  }
}

json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

}  // namespace mlfma2d::bench_solve

namespace {

using bench_solve::Args;
using bench_solve::number;
using bench_solve::save;

// An exact circle from two half-circle arcs (bulge 1), centre (cx, cy).
void add_arc_circle(Contours* c, double cx, double cy, double r, int conductor) {
  c->add({cx + r, cx - r}, {cy, cy}, true, conductor, {1.0, 1.0});
}

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

// Zero-thickness microstrip over the ground plane against Hammerstad and Jensen, converged to
// accuracy 1e-5 (mesh), with the substrate 40 (w + h) wide; one line at 20/40/80 (w + h).
void microstrip(const Args& a) {
  const double h = 1e-3, accuracy = 1e-5;
  json j = {{"what", "microstrip-line, t = 0, over the ground plane, vs Hammerstad-Jensen"},
            {"h_m", h},
            {"accuracy", accuracy},
            {"backend", a.backend},
            {"rows", json::array()}};
  std::printf(
      "microstrip-line (t = 0, h = 1 mm) over the ground plane, accuracy %.0e, backend %s\n",
      accuracy, a.backend.c_str());
  std::printf("%6s %6s %8s %10s %10s %10s %10s %10s %10s %9s %8s %8s %8s\n", "w/h", "eps_r",
              "W/(w+h)", "Z0", "eps_eff", "HJ Z0", "HJ eps_eff", "dZ0", "deps_eff", "estimate",
              "panels", "its", "seconds");
  struct Case {
    double u, eps_r, width;  // w/h, eps_r, substrate width / (w + h)
  };
  std::vector<Case> cases;
  for (const double eps_r : {2.2, 4.4, 10.0}) {
    for (const double u : {0.2, 0.5, 1.0, 2.0, 5.0, 10.0}) cases.push_back({u, eps_r, 40});
  }
  for (const double width : {20.0, 80.0}) cases.push_back({1.0, 4.4, width});
  for (const Case& c : cases) {
    ContourShape p;
    p.h = h;
    p.w = c.u * h;
    p.t = 0;
    p.eps_r = c.eps_r;
    p.ground = c.width * (p.w + h);
    ElectrostaticOptions o;
    o.ground_plane = true;
    o.accuracy = accuracy;
    o.fmm.backend = a.backend;
    const ElectrostaticSolution s = solve_conductors(generate_contours("microstrip-line", p), o);
    const MicrostripFormula hj = hammerstad_jensen(p.w, h, c.eps_r);
    const double dz = s.line.z0 / hj.z0 - 1, de = s.line.eps_eff / hj.eps_eff - 1;
    std::printf(
        "%6.1f %6.1f %8.0f %10.4f %10.5f %10.4f %10.5f %10.2e %10.2e %9.1e %8zu %8d %8.1f\n", c.u,
        c.eps_r, c.width, s.line.z0, s.line.eps_eff, hj.z0, hj.eps_eff, dz, de, s.accuracy_estimate,
        s.panels.size(), s.iterations, s.timings.total);
    std::fflush(stdout);
    j["rows"].push_back({{"w_over_h", c.u},
                         {"eps_r", c.eps_r},
                         {"substrate_width_over_w_plus_h", c.width},
                         {"z0_ohm", number(s.line.z0)},
                         {"eps_eff", number(s.line.eps_eff)},
                         {"hj_z0_ohm", hj.z0},
                         {"hj_eps_eff", hj.eps_eff},
                         {"z0_rel_diff", number(dz)},
                         {"eps_eff_rel_diff", number(de)},
                         {"c_f_per_m", s.capacitance[0][0]},
                         {"c0_f_per_m", s.line.capacitance_vacuum[0][0]},
                         {"accuracy_estimate", number(s.accuracy_estimate)},
                         {"accuracy_met", s.accuracy_met},
                         {"meshes", s.meshes.size()},
                         {"panels", s.panels.size()},
                         {"iterations", s.iterations},
                         {"seconds", s.timings.total}});
    save(a, j);
  }
}

// The accuracy estimate against the true error on cases with closed forms, at three targets.
void estimates(const Args& a) {
  json j = {{"what", "accuracy estimate vs true error (closed forms)"},
            {"backend", a.backend},
            {"rows", json::array()}};
  struct Case {
    const char* name;
    Contours contours;
    bool ground_plane;
    double eps_b, exact, exact_vacuum;
  };
  std::vector<Case> cases;
  {
    ContourShape p;
    p.a = 1e-3;
    p.r1 = 1.6e-3;
    p.b = 3e-3;
    p.eps_r = 4.4;
    cases.push_back({"coax-sleeve", generate_contours("coax-sleeve", p), false, 1,
                     coax_sleeve_capacitance(p.a, p.r1, p.b, p.eps_r, 1),
                     coax_capacitance(p.a, p.b)});
  }
  {
    Contours c;
    add_arc_circle(&c, 0, 2.3e-3, 1e-3, 0);
    cases.push_back({"wire-over-ground", c, true, 2.1,
                     wire_over_ground_capacitance(1e-3, 2.3e-3, 2.1),
                     wire_over_ground_capacitance(1e-3, 2.3e-3)});
  }
  {
    Contours c;
    add_arc_circle(&c, 0, 0, 3e-3, 0);
    add_arc_circle(&c, 1e-3, 0, 1e-3, 1);
    cases.push_back({"eccentric-coax-arcs", c, false, 1,
                     eccentric_coax_capacitance(1e-3, 3e-3, 1e-3),
                     eccentric_coax_capacitance(1e-3, 3e-3, 1e-3)});
  }
  std::printf("accuracy estimate vs true error |C/C_exact - 1| (and C0), backend %s\n",
              a.backend.c_str());
  std::printf("%-20s %8s %10s %10s %10s %8s %5s %7s %8s %8s\n", "case", "target", "estimate",
              "error C", "error C0", "bounded", "met", "meshes", "panels", "seconds");
  for (const Case& c : cases) {
    for (const double target : {1e-5, 1e-7, 1e-8}) {
      ElectrostaticOptions o;
      o.ground_plane = c.ground_plane;
      o.eps_r = c.eps_b;
      o.accuracy = target;
      o.fmm.backend = a.backend;
      const ElectrostaticSolution s = solve_conductors(c.contours, o);
      const double err = s.capacitance[0][0] / c.exact - 1;
      const double err0 = s.line.capacitance_vacuum[0][0] / c.exact_vacuum - 1;
      const double worst = std::max(std::abs(err), std::abs(err0));
      const bool bounded = s.accuracy_estimate >= worst;
      std::printf("%-20s %8.0e %10.2e %10.2e %10.2e %8s %5s %7zu %8zu %8.1f\n", c.name, target,
                  s.accuracy_estimate, err, err0, bounded ? "yes" : "NO",
                  s.accuracy_met ? "yes" : "no", s.meshes.size(), s.panels.size(), s.timings.total);
      std::fflush(stdout);
      json meshes = json::array();
      for (const MeshLevel& m : s.meshes) {
        meshes.push_back({{"panels", m.panels},
                          {"change", number(m.change)},
                          {"seconds", m.seconds},
                          {"iterations", m.iterations}});
      }
      j["rows"].push_back({{"case", c.name},
                           {"target", target},
                           {"estimate", number(s.accuracy_estimate)},
                           {"error_c", err},
                           {"error_c0", err0},
                           {"bounded", bounded},
                           {"met", s.accuracy_met},
                           {"c_f_per_m", s.capacitance[0][0]},
                           {"c_exact_f_per_m", c.exact},
                           {"meshes", meshes},
                           {"panels", s.panels.size()},
                           {"seconds", s.timings.total}});
      save(a, j);
    }
  }
}

// GMRES iterations per right-hand side against the panel count, the default preconditioner
// (auto = block) and none.
void iterations(const Args& a) {
  json j = {{"what", "GMRES iterations per right-hand side vs panels (tol 1e-10)"},
            {"backend", a.backend},
            {"rows", json::array()}};
  struct Case {
    const char* name;
    const char* shape;
    ContourShape p;
    bool ground_plane;
    const char* preconditioner;
  };
  ContourShape coax;
  coax.vertices = 512;
  ContourShape sleeve;
  sleeve.a = 1e-3;
  sleeve.r1 = 1.6e-3;
  sleeve.b = 3e-3;
  const Case cases[] = {{"coax 512-gon", "coax", coax, false, "auto"},
                        {"coax 512-gon", "coax", coax, false, "none"},
                        {"coupled-microstrip", "coupled-microstrip", ContourShape(), true, "auto"},
                        {"coax-sleeve", "coax-sleeve", sleeve, false, "auto"}};
  std::printf("GMRES iterations per right-hand side (tol 1e-10, restart 50), backend %s\n",
              a.backend.c_str());
  std::printf("%-20s %-8s %8s %8s %14s %6s %10s %10s %8s\n", "geometry", "precond", "panels",
              "solves", "its per solve", "total", "product s", "C", "seconds");
  for (const Case& c : cases) {
    // 1024 x 10^k: the 512-gon coax has 1024 sides, each needs a panel.
    for (const std::size_t n : {std::size_t(1024), std::size_t(10240), std::size_t(102400)}) {
      ElectrostaticOptions o;
      o.ground_plane = c.ground_plane;
      o.panels = n;
      o.preconditioner = c.preconditioner;
      o.fmm.backend = a.backend;
      o.max_iterations = 1000;
      const double t0 =
          std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
              .count();
      json row = {{"case", c.name}, {"preconditioner", c.preconditioner}, {"panels_asked", n}};
      try {
        const ElectrostaticSolution s = solve_conductors(generate_contours(c.shape, c.p), o);
        std::string per;
        json its = json::array();
        for (const SolveStats& st : s.solves) {
          per += (per.empty() ? "" : ",") + std::to_string(st.iterations);
          its.push_back(st.iterations);
        }
        std::printf("%-20s %-8s %8zu %8zu %14s %6d %10.4f %10.4e %8.1f\n", c.name,
                    s.preconditioner.c_str(), s.panels.size(), s.solves.size(), per.c_str(),
                    s.iterations, s.timings.product, s.capacitance[0][0], s.timings.total);
        row.update({{"preconditioner_used", s.preconditioner},
                    {"panels", s.panels.size()},
                    {"iterations_per_solve", its},
                    {"iterations", s.iterations},
                    {"product_seconds", s.timings.product},
                    {"c11_f_per_m", s.capacitance[0][0]},
                    {"seconds", s.timings.total}});
      } catch (const Error& e) {
        const double t1 =
            std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
                .count();
        std::printf("%-20s %-8s %8zu %s (%.1f s)\n", c.name, c.preconditioner, n, e.what(),
                    t1 - t0);
        row["failure"] = e.what();
      }
      std::fflush(stdout);
      j["rows"].push_back(row);
      save(a, j);
    }
  }
}

// A comma-separated list of positive integers, or exit 2 naming the option.
template <class T>
std::vector<T> counts(const std::string& option, const std::string& text) {
  std::vector<T> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    char* stop = nullptr;
    const std::string item = text.substr(at, end - at);
    const long long v = std::strtoll(item.c_str(), &stop, 10);
    if (item.empty() || *stop != '\0' || v < 1) {
      std::fprintf(stderr,
                   "mlfma2d_bench_solve: %s '%s': expected integers >= 1, comma-separated\n",
                   option.c_str(), text.c_str());
      std::exit(2);
    }
    out.push_back(static_cast<T>(v));
    at = end + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  Args a;
  for (int i = 2; i < argc; ++i) {
    const std::string k = argv[i];
    if ((k == "--backend" || k == "--json") && i + 1 < argc) {
      (k == "--backend" ? a.backend : a.json_path) = argv[++i];
    } else if (k == "--traces" && i + 1 < argc) {
      a.traces = counts<int>(k, argv[++i]);
    } else if (k == "--panels" && i + 1 < argc) {
      a.panels = counts<std::size_t>(k, argv[++i]);
    } else if ((k == "--repeats" || k == "--threads") && i + 1 < argc) {
      (k == "--repeats" ? a.repeats : a.threads) = counts<int>(k, argv[++i]).front();
    } else {
      std::fprintf(stderr, "mlfma2d_bench_solve: unknown argument '%s'\n", k.c_str());
      return 2;
    }
  }
  if (what == "convergence") {
    convergence();
  } else if (what == "quadrature") {
    quadrature();
  } else if (what == "preconditioners") {
    preconditioners();
  } else if (what == "microstrip") {
    microstrip(a);
  } else if (what == "estimates") {
    estimates(a);
  } else if (what == "iterations") {
    iterations(a);
  } else if (what == "batched") {
    bench_solve::batched(a);
  } else {
    std::fprintf(stderr,
                 "usage: mlfma2d_bench_solve convergence|quadrature|preconditioners\n"
                 "       mlfma2d_bench_solve microstrip|estimates|iterations [--backend NAME] "
                 "[--json FILE]\n"
                 "       mlfma2d_bench_solve batched [--traces K,K] [--panels N,N] [--repeats R] "
                 "[--threads T] [--backend NAME] [--json FILE]\n");
    return 2;
  }
  return 0;
}
