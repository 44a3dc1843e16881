// The pieces of `mlfma2d solve` below the command line (compiled in: app/solve_report.cpp,
// app/solve_plot.cpp, app/plots.cpp, app/progress.cpp): the report built from one table of
// fields, filled by hand with what the solver returns (line parameters, accuracy, meshes); the
// HSPICE RLGC file read back; the throttled progress lines; the probe grid and the picture.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/plots.hpp"
#include "app/progress.hpp"
#include "app/solve_plot.hpp"
#include "app/solve_report.hpp"
#include "mlfma2d/electrostatics.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

using app::SolveRun;
using nlohmann::json;
using testing::contains;
using testing::fresh_path;

// A symmetric coupled pair over a ground plane, as the solver would return it (values made up,
// consistent in kind: C Maxwell with negative mutual terms, L from C0).
ElectrostaticSolution coupled_pair() {
  ElectrostaticSolution s;
  s.charge = {1.5e-10, -0.2e-10};
  s.potentials = {1, 0};
  s.ground_plane = true;
  s.ground_plane_y = 0;
  s.reference = -1;
  s.capacitance = {{1.25e-10, -0.125e-10}, {-0.125e-10, 1.25e-10}};
  s.capacitance_conductors = {0, 1};
  LineParameters& l = s.line;
  l.capacitance_vacuum = {{0.5e-10, -0.05e-10}, {-0.05e-10, 0.5e-10}};
  l.inductance = {{2.5e-7, 0.25e-7}, {0.25e-7, 2.5e-7}};
  l.capacitance_mutual = {{0, 0.125e-10}, {0.125e-10, 0}};
  l.capacitance_to_ground = {1.125e-10, 1.125e-10};
  l.z0 = l.eps_eff = l.velocity = NAN;
  l.symmetric_pair = true;
  l.modes = {{1.6e8, 3.5, 45.5, {1, 1}}, {1.8e8, 2.8, 38.25, {1, -1}}};
  s.accuracy_target = 1e-6;
  s.accuracy_estimate = 3.1e-8;
  s.accuracy_met = true;
  s.meshes = {{4096, NAN, 1.5, 12}, {8192, 2.5e-7, 3.25, 13}};
  s.iterations = 26;
  s.residual = 3e-11;
  s.panels.x = s.panels.y = std::vector<double>(8192, 0.0);
  return s;
}

SolveRun run_of(const ElectrostaticSolution& s) {
  SolveRun r;
  r.input = "pair.h5";
  r.options.accuracy = s.accuracy_target;
  r.solution = s;
  return r;
}

TEST(SolveReport, TextAndJsonOfACoupledPair) {
  const SolveRun r = run_of(coupled_pair());
  const std::string text = app::solve_text(r);
  // Text in engineering units: pF/m, nH/m; the modes named even and odd.
  for (const char* part :
       {"C, Maxwell matrix (pF/m):", "125", "-12.5", "C0, all eps_r = 1 (pF/m):", "L (nH/m):",
        "250", "C to ground", "112.5  112.5 pF/m", "even", "odd", "45.5", "38.25", "y = 0 m",
        "the ground plane", "estimate 3.1e-08 (target 1e-06: met)", "8192", "2.5e-07"}) {
    EXPECT_TRUE(contains(text, part)) << part << "\n" << text;
  }
  EXPECT_FALSE(contains(text, "Z0")) << text;  // two signal conductors: modes, no single Z0
  // JSON in SI, from the same table.
  const json j = app::solve_json(r);
  EXPECT_EQ(j["capacitance"][0][1].get<double>(), -0.125e-10);
  EXPECT_EQ(j["inductance"][1][1].get<double>(), 2.5e-7);
  EXPECT_EQ(j["capacitance_vacuum"][0][0].get<double>(), 0.5e-10);
  EXPECT_EQ(j["capacitance_mutual"][0][1].get<double>(), 0.125e-10);
  EXPECT_EQ(j["capacitance_to_ground"][1].get<double>(), 1.125e-10);
  ASSERT_EQ(j["modes"].size(), 2u);
  EXPECT_EQ(j["modes"][0]["label"], "even");
  EXPECT_EQ(j["modes"][1]["label"], "odd");
  EXPECT_EQ(j["modes"][1]["impedance"].get<double>(), 38.25);
  EXPECT_NEAR(j["modes"][0]["velocity_over_c"].get<double>(), 1.6e8 / 299792458.0, 1e-15);
  EXPECT_FALSE(j.contains("z0"));
  EXPECT_EQ(j["accuracy"]["estimate"].get<double>(), 3.1e-8);
  EXPECT_EQ(j["accuracy"]["target"].get<double>(), 1e-6);
  EXPECT_TRUE(j["accuracy"]["met"].get<bool>());
  ASSERT_EQ(j["meshes"].size(), 2u);
  EXPECT_TRUE(j["meshes"][0]["change"].is_null());
  EXPECT_EQ(j["meshes"][1]["panels"], 8192);
  EXPECT_EQ(j["ground_plane_y"].get<double>(), 0.0);
  EXPECT_EQ(j["reference"], -1);
  // Every key of the JSON is in the help's list, with its unit.
  const std::string keys = app::solve_json_keys();
  for (const auto& [key, value] : j.items()) {
    EXPECT_TRUE(contains(keys, key)) << key;
  }
  EXPECT_TRUE(contains(keys, "inductance (H/m)")) << keys;
}

TEST(SolveReport, OneSignalConductorHasZ0EpsEffAndVelocity) {
  ElectrostaticSolution s = coupled_pair();
  testing::set_one_signal_line(&s, 1.25e-10, 2.5e-7, 50.25, 3.25, 299792458.0 / std::sqrt(3.25));
  s.line.symmetric_pair = false;
  const SolveRun r = run_of(s);
  const std::string text = app::solve_text(r);
  EXPECT_TRUE(contains(text, "Z0                50.25 ohm")) << text;
  EXPECT_TRUE(contains(text, "eps_eff           3.25")) << text;
  EXPECT_TRUE(contains(text, "m/s (0.554700 c)")) << text;
  EXPECT_FALSE(contains(text, "modes")) << text;
  const json j = app::solve_json(r);
  EXPECT_EQ(j["z0"].get<double>(), 50.25);
  EXPECT_EQ(j["eps_eff"].get<double>(), 3.25);
  EXPECT_NEAR(j["velocity_over_c"].get<double>(), 1 / std::sqrt(3.25), 1e-15);
  // Without line parameters (no L): no Z0, not a made-up 0 ohm.
  SolveRun bare = r;
  bare.solution.line = LineParameters{};
  EXPECT_FALSE(contains(app::solve_text(bare), "Z0")) << app::solve_text(bare);
  EXPECT_FALSE(app::solve_json(bare).contains("z0"));
}

TEST(SolveReport, AccuracyIsMetOnlyWhenChecked) {
  ElectrostaticSolution s = coupled_pair();
  SolveRun r = run_of(s);
  r.options.max_panels = 4000000;
  // The solver's flag alone is not enough: the estimate must be there and below the target.
  r.solution.accuracy_estimate = NAN;
  EXPECT_EQ(app::accuracy_text(r),
            "not estimated (target 1e-06: NOT checked, the solver gave no estimate)");
  EXPECT_FALSE(app::accuracy_met(r));
  r.solution.accuracy_estimate = 2e-6;
  EXPECT_EQ(app::accuracy_text(r), "estimate 2e-06 (target 1e-06: NOT met)");
  EXPECT_FALSE(app::solve_json(r)["accuracy"]["met"].get<bool>());
  // Stopped by the mesh limit: the next mesh (doubled) would pass it.
  r.solution.accuracy_met = false;
  r.options.max_panels = 10000;
  EXPECT_EQ(app::accuracy_text(r),
            "estimate 2e-06 (target 1e-06: NOT met, the mesh limit of 10000 panels "
            "(--max-panels) reached)");
  // A fixed mesh: no target.
  r.options.accuracy = 0;
  r.mesh_option = "--panels";
  EXPECT_EQ(app::accuracy_text(r), "not estimated (fixed mesh: --panels given; add --accuracy)");
  EXPECT_TRUE(app::solve_json(r)["accuracy"]["target"].is_null());
  EXPECT_TRUE(contains(app::solve_text(r), "accuracy          not estimated (fixed mesh"));
}

TEST(SolveReport, PanelSizeAsGivenAndProbesOnPanelEnds) {
  SolveRun r = run_of(coupled_pair());
  r.options.panel_size = 1e-10;
  r.tx = {0, 1e-3};
  r.ty = {0, 0};
  r.field.potential = {0.5, 0.25};
  r.field.field_x = {NAN, 1};
  r.field.field_y = {NAN, 2};
  r.field.undefined_field = 1;
  const std::string text = app::solve_text(r);
  EXPECT_TRUE(contains(text, "panel size        1e-10 m")) << text;
  EXPECT_TRUE(contains(text, "1 probe lies on a panel end: field NaN, potential the limit"))
      << text;
  const json j = app::solve_json(r);
  EXPECT_EQ(j["panel_size"].get<double>(), 1e-10);
  EXPECT_EQ(j["undefined_field"], 1);
  EXPECT_TRUE(j["targets"]["field_x"][0].is_null());  // NaN: JSON null
}

TEST(SolveReport, OneChargedConductorHasNoReference) {
  ElectrostaticSolution s;
  s.charge = {1e-9};
  s.potentials = {149};
  const std::string text = app::solve_text(run_of(s));
  EXPECT_TRUE(contains(text, "reference         none (one conductor, its charge given)")) << text;
  EXPECT_TRUE(contains(text, "1e-09  signal")) << text;
  EXPECT_FALSE(contains(text, "\n\n\n")) << text;
}

// ---- RLGC

std::vector<double> numbers_after_comments(const std::string& path, std::string* comments) {
  std::ifstream in(path);
  std::string line;
  std::vector<double> v;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '*') {
      *comments += line + "\n";
      continue;
    }
    std::istringstream words(line);
    double x;
    while (words >> x) v.push_back(x);
    EXPECT_TRUE(words.eof()) << "not a number in: " << line;
  }
  return v;
}

TEST(Rlgc, TheHspiceFormatReadsBack) {
  const ElectrostaticSolution s = coupled_pair();
  const std::string p = fresh_path("pair.rlgc");
  write_rlgc(p, s);
  std::string comments;
  const std::vector<double> v = numbers_after_comments(p, &comments);
  // N, then L0, C0, R0, G0 as lower triangles (3 numbers each for N = 2).
  ASSERT_EQ(v.size(), 1u + 4 * 3) << testing::read_file(p);
  EXPECT_EQ(v[0], 2);
  const std::vector<double> l{v[1], v[2], v[3]}, c{v[4], v[5], v[6]};
  const std::vector<double> l_expected{2.5e-7, 0.25e-7, 2.5e-7};
  const std::vector<double> c_expected{1.25e-10, -0.125e-10, 1.25e-10};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(l[i], l_expected[i], 1e-12 * std::abs(l_expected[i])) << i;
    EXPECT_NEAR(c[i], c_expected[i], 1e-12 * std::abs(c_expected[i])) << i;
    EXPECT_EQ(v[7 + i], 0);   // R0
    EXPECT_EQ(v[10 + i], 0);  // G0
  }
  EXPECT_TRUE(contains(comments, "ground plane")) << comments;
  // No capacitance matrix: refused, nothing written.
  ElectrostaticSolution one;
  one.charge = {1e-9};
  const std::string q = fresh_path("one.rlgc");
  EXPECT_THROW(write_rlgc(q, one), InvalidInput);
  EXPECT_FALSE(std::ifstream(q).good());
  EXPECT_THROW(write_rlgc(fresh_path("no/such/folder/x.rlgc"), s), IoError);
}

// ---- Progress lines

TEST(ThrottledLines, AtMostOnePerInterval) {
  std::ostringstream err;
  ::setenv("MLFMA2D_PROGRESS_AFTER", "0", 1);
  {
    app::ThrottledLines every(err, false);
    every("iteration 1");
    every("iteration 2");
    EXPECT_EQ(every.shown(), 2u);
    app::ThrottledLines quiet(err, true);
    quiet("iteration 1");
    EXPECT_EQ(quiet.shown(), 0u);
  }
  EXPECT_EQ(err.str(), "  iteration 1\n  iteration 2\n");
  ::setenv("MLFMA2D_PROGRESS_AFTER", "3600", 1);
  app::ThrottledLines hourly(err, false);
  for (int i = 0; i < 100; ++i) hourly("iteration");
  EXPECT_EQ(hourly.shown(), 0u);
  ::unsetenv("MLFMA2D_PROGRESS_AFTER");
}

// ---- The picture

TEST(SolvePlot, ProbeGridFieldAndPicture) {
  ElectrostaticOptions o;
  o.panels = 512;
  ElectrostaticSolver solver(generate_contours("two-wire"), o);
  const ElectrostaticSolution s = solver.solve();
  const app::ProbeGrid g = app::probe_grid(s, 6000);
  ASSERT_EQ(g.x.size(), g.nx * g.ny);
  EXPECT_NEAR(double(g.x.size()), 6000, 600);
  // The wires (x in [-3, 3] mm, y in [-1, 1] mm) with 15% of 6 mm around them.
  EXPECT_NEAR(g.x0, -3e-3 - 0.9e-3, 1e-6);
  EXPECT_NEAR(g.y1, 1e-3 + 0.9e-3, 1e-6);
  EXPECT_NEAR((g.x1 - g.x0) / double(g.nx - 1), (g.y1 - g.y0) / double(g.ny - 1),
              0.05 * (g.x1 - g.x0) / double(g.nx - 1));  // square cells
  const FieldAtTargets f = solver.evaluate(s, g.x, g.y);
  std::size_t nan_field = 0;
  for (std::size_t i = 0; i < g.x.size(); ++i) {
    ASSERT_TRUE(std::isfinite(f.potential[i])) << i;
    nan_field += !std::isfinite(f.field_x[i]) || !std::isfinite(f.field_y[i]);
  }
  EXPECT_EQ(nan_field, f.undefined_field);
  EXPECT_LT(nan_field, g.x.size() / 100);
  if (!app::gnuplot_available()) GTEST_SKIP() << "gnuplot is not installed: no picture";
  const std::string png = fresh_path("two-wire.png");
  app::plot_solution(png, s, g, f, "two-wire");
  const std::string bytes = testing::read_file(png);
  ASSERT_GT(bytes.size(), 10000u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
}

// Every element of the picture (an interface, the ground plane, a solid conductor and a strip)
// on a made-up solution and field: gnuplot renders the script.
TEST(SolvePlot, InterfacesGroundPlaneAndMetal) {
  if (!app::gnuplot_available()) GTEST_SKIP() << "gnuplot is not installed: no picture";
  ElectrostaticSolution s;
  Panels& p = s.panels;
  auto panel = [&](double x0, double y0, double x1, double y1, int contour, int conductor) {
    p.x0.push_back(x0), p.y0.push_back(y0), p.x1.push_back(x1), p.y1.push_back(y1);
    p.x.push_back((x0 + x1) / 2), p.y.push_back((y0 + y1) / 2);
    p.length.push_back(std::hypot(x1 - x0, y1 - y0));
    p.contour.push_back(contour), p.conductor.push_back(conductor);
  };
  panel(-1e-3, 1e-3, 1e-3, 1e-3, 0, 0);  // a strip on the substrate
  const double box[5][2] = {{3e-3, 0}, {3e-3, 1e-3}, {-3e-3, 1e-3}, {-3e-3, 0}, {3e-3, 0}};
  for (int i = 0; i < 3; ++i) panel(box[i][0], box[i][1], box[i + 1][0], box[i + 1][1], 1, -1);
  const double sq[5][2] = {
      {2e-3, 2e-3}, {2.5e-3, 2e-3}, {2.5e-3, 2.5e-3}, {2e-3, 2.5e-3}, {2e-3, 2e-3}};
  for (int i = 0; i < 4; ++i) panel(sq[i][0], sq[i][1], sq[i + 1][0], sq[i + 1][1], 2, 1);
  s.ground_plane = true;
  s.ground_plane_y = 0;
  s.potentials = {1, 0.5};
  const app::ProbeGrid g = app::probe_grid(s, 3000);
  EXPECT_EQ(g.y0, 0);  // nothing below the plane
  FieldAtTargets f;
  for (std::size_t i = 0; i < g.x.size(); ++i) {
    f.potential.push_back(g.y[i] / 3e-3);
    f.field_x.push_back(1e9 * g.x[i] * g.x[i]);
    f.field_y.push_back(-10 - 1e3 * g.y[i]);
  }
  const std::string png = fresh_path("elements.png");
  app::plot_solution(png, s, g, f, "interfaces, ground plane, metal");
  const std::string bytes = testing::read_file(png);
  ASSERT_GT(bytes.size(), 10000u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  // A field of the wrong size is refused before anything is drawn.
  f.potential.pop_back();
  EXPECT_THROW(app::plot_solution(fresh_path("never.png"), s, g, f, "x"), InvalidInput);
}

}  // namespace
}  // namespace mlfma2d
