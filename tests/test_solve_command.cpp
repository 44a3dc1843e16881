// The `mlfma2d solve` / `mlfma2d generate` commands end to end: reports, files, plots, progress,
// exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/electrostatics.hpp"
#include "tests/h5_writer.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::AppRun;
using testing::contains;
using testing::describe;
using testing::fresh_path;
using testing::run_app;

std::string generated(const std::string& shape, const std::string& more = "") {
  const std::string p = fresh_path(shape + ".h5");
  const AppRun r = run_app("generate --shape " + shape + " --n 256 --output " + p + " " + more);
  EXPECT_EQ(r.code, 0) << describe(r);
  return p;
}

TEST(SolveCommand, JsonReportOfATwoWireLine) {
  const std::string geom = generated("two-wire", "--params a=1e-3,d=5e-3");
  const std::string out = fresh_path("tw_solution.h5");
  const AppRun r =
      run_app("solve --input " + geom + " --panels 1024 --report json --quiet --output " + out);
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.err, "");
  const json j = json::parse(r.out);
  for (const char* key : {"capacitance", "charge", "panels", "iterations", "residual", "solves",
                          "timings", "potentials", "fmm"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  ASSERT_EQ(j["capacitance"].size(), 1u);
  ASSERT_EQ(j["capacitance"][0].size(), 1u);
  const double c = j["capacitance"][0][0];
  EXPECT_NEAR(c / two_wire_capacitance(1e-3, 5e-3), 1, 1e-4);
  EXPECT_EQ(j["charge"].size(), 2u);
  EXPECT_NEAR(j["charge"][1].get<double>(), c, 1e-9 * c);  // 1 V on conductor 1, 0 V on 0
  EXPECT_EQ(j["panels"], 1024);
  EXPECT_LE(j["residual"].get<double>(), 1e-10 * 1.0001);
  EXPECT_EQ(j["solves"][0]["residual_history"].size(),
            j["solves"][0]["iterations"].get<std::size_t>());
  EXPECT_GT(j["timings"]["product"].get<double>(), 0);
  EXPECT_TRUE(fs::exists(out));
}

TEST(SolveCommand, TextReportPotentialsFromTheFileAndTargets) {
  const std::string geom = fresh_path("ms.h5");
  ContourFile f;
  f.contours = generate_contours("microstrip");
  f.potentials = {0, 1, -1};  // odd mode
  f.eps_r = 2;
  f.has_eps_r = true;
  write_contours(geom, f);
  const std::string targets = fresh_path("targets.csv");
  std::ofstream(targets) << "x,y\n0,1e-3\n0,2.5e-4\n";
  AppRun r = run_app("solve --input " + geom + " --panels 900 --targets " + targets + " --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "C, Maxwell matrix (pF/m)")) << r.out;
  EXPECT_TRUE(contains(r.out, "eps_r background  2")) << r.out;
  EXPECT_TRUE(contains(r.out, "targets")) << r.out;
  r = run_app("solve --input " + geom + " --panels 900 --targets " + targets +
              " --quiet --report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["potentials"], (std::vector<double>{0, 1, -1}));
  EXPECT_EQ(j["eps_r"], 2.0);
  // Odd mode: the strips' charges are opposite; on the symmetry plane x = 0 the potential is 0.
  EXPECT_NEAR(j["charge"][1].get<double>() / j["charge"][2].get<double>(), -1, 1e-6);
  EXPECT_NEAR(j["targets"]["potential"][0].get<double>(), 0, 1e-9);
  EXPECT_NEAR(j["targets"]["potential"][1].get<double>(), 0, 1e-9);
  // --potentials and --eps-r win over the file.
  r = run_app("solve --input " + geom +
              " --panels 900 --potentials 0,1,1 --eps-r 1 --quiet "
              "--report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json k = json::parse(r.out);
  EXPECT_EQ(k["potentials"], (std::vector<double>{0, 1, 1}));
  EXPECT_NEAR(k["charge"][1].get<double>() / k["charge"][2].get<double>(), 1, 1e-6);
}

TEST(SolveCommand, OneConductorWithACharge) {
  const std::string geom = generated("strip");
  const AppRun r = run_app("solve --input " + geom +
                           " --charge 2e-9 --panels 400 --quiet "
                           "--report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json j = json::parse(r.out);
  EXPECT_TRUE(j["capacitance"].empty());
  EXPECT_NEAR(j["charge"][0].get<double>(), 2e-9, 1e-20);
}

TEST(SolveCommand, ErrorsHaveTheirExitCodesAndWriteNothing) {
  const std::string geom = generated("two-wire");
  const std::string out = fresh_path("never.h5");
  auto expect = [&](const std::string& args, int code, const std::string& part) {
    const AppRun r = run_app("solve " + args + " --output " + out);
    EXPECT_EQ(r.code, code) << args << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, part)) << args << "\n" << describe(r);
    EXPECT_FALSE(fs::exists(out)) << args;
  };
  expect("--panels 1024", 2, "--input is required");
  expect("--input " + geom + " --reference 2", 2, "reference conductor 2 is out of range");
  expect("--input " + geom + " --potentials 0,1,2", 2, "3 potentials given for 2 conductors");
  expect("--input " + geom + " --eps-r -1", 2, "--eps-r: invalid value '-1'");
  expect("--input " + geom + " --panels 100", 2, "is less than the 512 contour segments");
  expect("--input " + geom + " --tol 2", 2, "--tol: invalid value '2'");
  expect("--input " + geom + " --panels 1000 --panel-size 1e-4", 2, "exclude each other");
  expect("--input " + geom + " --method magic", 2, "--method: invalid value 'magic'");
  expect("--input " + geom + " --backend nonexistent", 2, "nonexistent");
  expect("--input " + fresh_path("missing.h5"), 3, "no such file");
  expect("--input " + geom + " --max-iterations 2 --tol 1e-14", 4, "GMRES did not reach");
  const std::string crossing = fresh_path("crossing.h5");
  {
    // Two squares, the second touching the first: a file the library would not write.
    testing::H5Writer f(crossing);
    f.numbers("/contours/x", {0, 1, 1, 0, 1, 3, 3, 1});
    f.numbers("/contours/y", {0, 0, 1, 1, 0, 0, 1, 1});
    f.integers("/contours/offsets", {0, 4, 8});
    f.integers("/contours/closed", {1, 1}, H5T_STD_I32LE);
    f.integers("/contours/conductor", {0, 1}, H5T_STD_I32LE);
  }
  expect("--input " + crossing, 3, "conductors 0 and 1 cross or touch");
  const AppRun csv = run_app("solve --input " + geom + " --output " + fresh_path("s.csv"));
  EXPECT_EQ(csv.code, 2) << describe(csv);
  EXPECT_TRUE(contains(csv.err, "is not HDF5")) << describe(csv);
}

TEST(SolveCommand, HelpAndGenerate) {
  const AppRun h = run_app("solve --help");
  EXPECT_EQ(h.code, 0);
  for (const char* part : {"F/m", "C/m^2", "--potentials", "--reference", "/contours/offsets",
                           "/capacitance", "Exit codes"}) {
    EXPECT_TRUE(contains(h.out, part)) << part;
  }
  EXPECT_TRUE(contains(run_app("--help").out, "mlfma2d solve"));
  EXPECT_TRUE(contains(run_app("generate --help").out, "eccentric-coax"));
  for (const std::string& shape : contour_shapes()) {
    const std::string p = generated(shape);
    EXPECT_NO_THROW(read_contours(p)) << shape;
  }
  AppRun bad =
      run_app("generate --shape coax --n 64 --params a=5e-3 --output " + fresh_path("c.h5"));
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "less than the outer radius")) << describe(bad);
  bad = run_app("generate --shape coax --n 64 --params q=1 --output " + fresh_path("c.h5"));
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "--params: invalid value 'q=1'")) << describe(bad);
}

TEST(SolveCommand, NewOptionsRefuseBadValuesAndWriteNothing) {
  const std::string geom = generated("two-wire");
  const std::string strip = generated("strip");
  const std::string out = fresh_path("never.h5"), png = fresh_path("never.png"),
                    rlgc = fresh_path("never.rlgc");
  auto expect = [&](const std::string& args, const std::string& part, int code = 2) {
    const AppRun r = run_app("solve " + args + " --output " + out);
    EXPECT_EQ(r.code, code) << args << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, part)) << args << "\n" << describe(r);
    for (const std::string& f : {out, png, rlgc}) EXPECT_FALSE(fs::exists(f)) << args << f;
  };
  expect("--input " + geom + " --accuracy 0", "--accuracy: invalid value '0'");
  expect("--input " + geom + " --accuracy 1.5", "--accuracy: invalid value '1.5'");
  expect("--input " + geom + " --accuracy abc", "--accuracy: invalid value 'abc'");
  expect("--input " + geom + " --max-panels 0", "--max-panels: invalid value '0'");
  expect("--input " + geom + " --panels 2048 --max-panels 1000",
         "--max-panels 1000 is less than --panels 2048");
  expect("--input " + geom + " --ground-plane high", "--ground-plane: invalid value 'high'");
  expect("--input " + geom + " --plot " + fresh_path("p.jpg"), "is not a PNG file name");
  expect("--input " + geom + " --rlgc " + out, "--rlgc and --output name the same file");
  expect("--input " + geom + " --rlgc " + geom, "--rlgc '" + geom + "' is an input file");
  // (No --plot beside it: where gnuplot is missing that is refused first.)
  expect("--input " + strip + " --rlgc " + rlgc,
         "--rlgc: one conductor and no ground plane have no capacitance matrix");
  expect("--input " + geom + " --rlgc " + fresh_path("no/such/folder/x.rlgc"), "does not exist", 3);
}

TEST(SolveCommand, AccuracyTargetsAndFixedMeshes) {
  const std::string geom = generated("two-wire");
  // A fixed mesh: one solve, no estimate, and the report says why.
  AppRun r = run_app("solve --input " + geom + " --panels 1024 --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "not estimated (fixed mesh: --panels given; add --accuracy)"))
      << r.out;
  // --panel-size as given, not rounded to six decimals.
  r = run_app("solve --input " + geom + " --panel-size 1e-5 --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "panel size        1e-05 m")) << r.out;
  // Default: a target of 1e-6; "met" only with an estimate below it.
  r = run_app("solve --input " + geom + " --quiet --report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["accuracy"]["target"].get<double>(), 1e-6);
  const json& e = j["accuracy"]["estimate"];
  EXPECT_EQ(j["accuracy"]["met"].get<bool>(), e.is_number() && e.get<double>() <= 1e-6);
  // With both, the target stands (refinement starts from the mesh given).
  r = run_app("solve --input " + geom + " --panels 1024 --accuracy 1e-4 --quiet --report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(json::parse(r.out)["accuracy"]["target"].get<double>(), 1e-4);
}

TEST(SolveCommand, PlotOfATwoWireLine) {
  const std::string geom = generated("two-wire");
  const std::string png = fresh_path("two-wire.png");
  const AppRun r =
      run_app("solve --input " + geom + " --panels 1024 --quiet --report json " + "--plot " + png);
  if (r.code == 2 && contains(r.err, "gnuplot not found")) {
    GTEST_SKIP() << "gnuplot is not installed: " << r.err;
  }
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(json::parse(r.out)["plot"], png);
  const std::string bytes = testing::read_file(png);
  ASSERT_GT(bytes.size(), 10000u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
}

// Needs the solver that fills the line parameters and calls ElectrostaticOptions::progress
// (issue 19, the lead's branch): enable once merged.
TEST(SolveCommand, ProgressLinesAndRlgcOfACoupledLine) {
  const std::string geom = generated("two-wire");
  const std::string rlgc = fresh_path("tw.rlgc");
  AppRun r = run_app("solve --input " + geom + " --panels 4096 --rlgc " + rlgc,
                     "MLFMA2D_PROGRESS_AFTER=0");
  ASSERT_EQ(r.code, 0) << describe(r);
  std::size_t lines = 0;
  for (std::size_t at = r.err.find("\n  "); at != std::string::npos;
       at = r.err.find("\n  ", at + 1)) {
    ++lines;
  }
  EXPECT_GE(lines, 2u) << r.err;
  EXPECT_TRUE(contains(testing::read_file(rlgc), "\n1\n")) << testing::read_file(rlgc);
  r = run_app("solve --input " + geom + " --panels 4096 --quiet");
  EXPECT_EQ(r.err, "");
}

// Issue 22: C's right-hand sides in one block by default (the progress lines and the report say
// so), one at a time with --no-batch; the same C.
TEST(SolveCommand, BatchedByDefaultOneAtATimeWithNoBatch) {
  const std::string geom = generated("microstrip");
  AppRun r = run_app("solve --input " + geom + " --panels 900", "MLFMA2D_PROGRESS_AFTER=0");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "right-hand sides 1-2 in one block: iterations ")) << r.err;
  EXPECT_TRUE(contains(r.out, "2 right-hand side(s), batched (2 per block)")) << r.out;
  r = run_app("solve --input " + geom + " --panels 900 --no-batch", "MLFMA2D_PROGRESS_AFTER=0");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "right-hand side 2/2: iteration ")) << r.err;
  EXPECT_TRUE(contains(r.out, "2 right-hand side(s), one at a time")) << r.out;
  const json block = json::parse(run_app("solve --input " + geom +
                                         " --panels 900 --report json "
                                         "--quiet")
                                     .out);
  const json one = json::parse(run_app("solve --input " + geom +
                                       " --panels 900 --report json "
                                       "--quiet --no-batch")
                                   .out);
  EXPECT_EQ(block["batched"], true);
  EXPECT_EQ(one["batched"], false);
  EXPECT_LT(block["timings"]["evaluations"], block["timings"]["products"]);
  EXPECT_EQ(one["timings"]["evaluations"], one["timings"]["products"]);
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 2; ++j) {
      const double a = block["capacitance"][i][j], b = one["capacitance"][i][j];
      EXPECT_NEAR(a / b, 1, 1e-9) << i << ", " << j;
    }
  }
}

// Issue 20: a tiny --panel-size is named as given, not "0.000000 m". The message is the
// library's (electrostatics/geometry.cpp, std::to_string there): enable once it prints %g.
TEST(SolveCommand, ATinyPanelSizeIsNamedAsGiven) {
  const std::string geom = generated("two-wire");
  const AppRun r = run_app("solve --input " + geom + " --panel-size 1e-10");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "panel size 1e-10 m")) << describe(r);
}

}  // namespace
}  // namespace mlfma2d
