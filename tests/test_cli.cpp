// End-to-end tests of the mlfma2d program: runs the built binary (MLFMA2D_APP) on files in a
// temporary folder and checks outputs, reports, error messages and exit codes.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "tests/test_util.hpp"

#ifndef MLFMA2D_APP
#error "test_cli needs MLFMA2D_APP (the program is built with MLFMA2D_BUILD_APP=ON)"
#endif

namespace fs = std::filesystem;
using mlfma2d::testing::temp_dir;
using nlohmann::json;

namespace {

struct AppRun {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string path(const std::string& name) {
  return (fs::path(temp_dir()) / name).string();
}

// Runs the program with `args` (shell words) and `environment` assignments ("VAR=value ..."),
// stdout and stderr captured in files.
AppRun run_app(const std::string& args, const std::string& environment = "") {
  static int counter = 0;
  const std::string stem = path("run" + std::to_string(++counter));
  const std::string command = environment + " '" + MLFMA2D_APP + "' " + args + " >'" + stem +
                              ".out' 2>'" + stem + ".err' </dev/null";
  const int status = std::system(command.c_str());
  AppRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(stem + ".out");
  r.err = slurp(stem + ".err");
  return r;
}

std::string describe(const AppRun& r) {
  return "exit " + std::to_string(r.code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

json run_json(const std::string& args) {
  const AppRun r = run_app(args + " --report json --quiet");
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.err, "") << describe(r);
  return json::parse(r.out);
}

// A generated point set file, made once per name.
std::string generated(const std::string& name, const std::string& shape, int n, int seed = 3) {
  const std::string file = path(name);
  if (!fs::exists(file)) {
    const AppRun r =
        run_app("generate --shape " + shape + " --n " + std::to_string(n) + " --seed " +
                std::to_string(seed) + " --output '" + file + "' --quiet");
    EXPECT_EQ(r.code, 0) << describe(r);
    EXPECT_EQ(r.out, "") << describe(r);
  }
  return file;
}

double rel_l2(const std::vector<double>& value, const std::vector<double>& reference) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    num += (value[i] - reference[i]) * (value[i] - reference[i]);
    den += reference[i] * reference[i];
  }
  return std::sqrt(num / den);
}

void write_text(const std::string& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

// An HDF5 file with /sources/x, /sources/y of n points and /sources/q of nq values.
void write_h5_sources(const std::string& file, hsize_t n, hsize_t nq) {
  const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t g = H5Gcreate2(f, "sources", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  auto put = [&](const char* name, hsize_t count) {
    std::vector<double> data(count);
    for (hsize_t i = 0; i < count; ++i) data[i] = 0.001 * static_cast<double>(i * 7 % 1000);
    const hid_t space = H5Screate_simple(1, &count, nullptr);
    const hid_t d =
        H5Dcreate2(g, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
    H5Dclose(d);
    H5Sclose(space);
  };
  put("x", n);
  put("y", n);
  put("q", nq);
  H5Gclose(g);
  H5Fclose(f);
}

}  // namespace

TEST(Cli, Version) {
  const AppRun r = run_app("--version");
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.out, std::string("mlfma2d ") + mlfma2d::version() + "\n");
}

TEST(Cli, HelpStatesConventionOptionsAndExitCodes) {
  const AppRun r = run_app("--help");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out,
                       "phi(x_i) = sum_j q_j log|x_i - y_j|, E = -grad phi, no 1/(2 pi) factor, "
                       "pairs with x_i == y_j (the self pair) skipped"))
      << r.out;
  for (const char* option :
       {"--input", "--targets", "--output", "--backend", "--ct", "--levels", "--eps", "--terms",
        "--field", "--verify", "--verify-sample", "--repeat", "--threads", "--seed", "--report",
        "--gpu-memory", "--quiet", "generate", "Exit codes"}) {
    EXPECT_TRUE(contains(r.out, option)) << option;
  }
  for (const std::string& name : mlfma2d::near_field_backends()) {
    EXPECT_TRUE(contains(r.out, name)) << name;
  }
  const AppRun g = run_app("generate --help");
  ASSERT_EQ(g.code, 0) << describe(g);
  for (const std::string& shape : mlfma2d::point_set_shapes()) {
    EXPECT_TRUE(contains(g.out, shape)) << shape;
  }
}

TEST(Cli, Hdf5RoundTripMatchesDirectSum) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const std::string out = path("plate2000_result.h5");
  const double eps = 1e-8;
  const AppRun r =
      run_app("--input '" + in + "' --output '" + out + "' --eps 1e-8 --field --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "2000")) << r.out;

  const mlfma2d::ResultFile result = mlfma2d::read_result(out);
  ASSERT_EQ(result.potential.size(), 2000u);
  ASSERT_EQ(result.field_x.size(), 2000u);
  ASSERT_EQ(result.field_y.size(), 2000u);
  for (std::size_t i = 0; i < 2000; ++i) {
    ASSERT_TRUE(std::isfinite(result.potential[i])) << i;
    ASSERT_TRUE(std::isfinite(result.field_x[i]) && std::isfinite(result.field_y[i])) << i;
  }
  const mlfma2d::PointSet p = mlfma2d::read_points(in);
  std::vector<double> phi, fx, fy;
  mlfma2d::testing::reference(p.x, p.y, p.q, p.x, p.y, &phi, &fx, &fy);
  EXPECT_LE(rel_l2(result.potential, phi), eps);
  EXPECT_LE(mlfma2d::testing::field_rel_l2(result.field_x, result.field_y, fx, fy), 100 * eps);
  // Parameters, tree figures and timings travel with the data (if the reader returns them).
  if (!result.attributes.empty()) {
    for (const char* key : {"ct",
                            "level_offset",
                            "eps",
                            "terms",
                            "backend",
                            "field",
                            "threads",
                            "input",
                            "n_sources",
                            "n_targets",
                            "levels",
                            "levels_ct",
                            "t",
                            "D",
                            "leaf_boxes",
                            "boxes",
                            "near_pairs",
                            "m2l_pairs",
                            "timing_total",
                            "timing_m2l",
                            "version"}) {
      EXPECT_TRUE(result.attributes.count(key)) << key;
    }
  }
}

TEST(Cli, JsonReportHasKeysAndVerifiesWithinEps) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const json j = run_json("--input '" + in + "' --eps 1e-6 --verify --field --repeat 3");
  for (const char* key :
       {"n_sources", "n_targets", "levels", "levels_ct", "level_offset", "t", "D", "terms", "eps",
        "backend", "ct", "leaf_boxes", "near_pairs", "pairs_per_second", "device_memory", "repeat",
        "warnings", "timings", "error"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key :
       {"tree", "plan", "setup", "p2m", "m2m", "m2l", "l2l", "l2p", "far", "near_collect",
        "near_transfer", "near_kernel", "near_return", "near", "total"}) {
    ASSERT_TRUE(j["timings"].contains(key)) << key;
    EXPECT_GE(j["timings"][key].get<double>(), 0.0) << key;
  }
  EXPECT_EQ(j["n_sources"], 2000);
  EXPECT_EQ(j["n_targets"], 2000);
  EXPECT_EQ(j["repeat"], 3);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["ct"], 15);
  EXPECT_EQ(j["level_offset"], 0);
  EXPECT_DOUBLE_EQ(j["eps"].get<double>(), 1e-6);
  EXPECT_TRUE(j["warnings"].is_array());
  const json& e = j["error"];
  EXPECT_LE(e["rel_l2"].get<double>(), 1e-6);
  EXPECT_GE(e["max_abs"].get<double>(), 0.0);
  EXPECT_EQ(e["sampled"], false);
  EXPECT_EQ(e["n_checked"], 2000);
  ASSERT_TRUE(e.contains("field_rel_l2"));
  EXPECT_LE(e["field_rel_l2"].get<double>(), 1e-4);
}

TEST(Cli, VerifySample) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const json j = run_json("--input '" + in + "' --verify-sample 100 --seed 5");
  EXPECT_EQ(j["error"]["sampled"], true);
  EXPECT_EQ(j["error"]["n_checked"], 100);
  EXPECT_LE(j["error"]["rel_l2"].get<double>(), 1e-6);
  EXPECT_FALSE(j["error"].contains("field_rel_l2"));
  const json all = run_json("--input '" + in + "' --verify-sample 0");
  EXPECT_EQ(all["error"]["sampled"], false);
  EXPECT_EQ(all["error"]["n_checked"], 2000);
}

TEST(Cli, TermsOverrideEps) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const json j = run_json("--input '" + in + "' --terms 12");
  EXPECT_EQ(j["terms"], 12);
}

TEST(Cli, CsvRoundTrip) {
  const std::string in = generated("circle1500.csv", "circle", 1500);
  const std::string out = path("circle1500_result.csv");
  const AppRun r = run_app("--input '" + in + "' --output '" + out + "' --field --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string text = slurp(out);
  EXPECT_TRUE(contains(text, "x,y,potential,field_x,field_y")) << text.substr(0, 2000);
  const mlfma2d::ResultFile result = mlfma2d::read_result(out);
  ASSERT_EQ(result.potential.size(), 1500u);
  ASSERT_EQ(result.field_x.size(), 1500u);
  const mlfma2d::PointSet p = mlfma2d::read_points(in);
  ASSERT_EQ(p.x.size(), 1500u);
  std::vector<double> phi;
  mlfma2d::testing::reference(p.x, p.y, p.q, p.x, p.y, &phi, nullptr, nullptr);
  EXPECT_LE(rel_l2(result.potential, phi), 1e-6);
}

TEST(Cli, SeparateTargets) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const std::string targets = generated("disk700.csv", "disk", 700, 11);
  const json j = run_json("--input '" + in + "' --targets '" + targets + "' --verify");
  EXPECT_EQ(j["n_sources"], 2000);
  EXPECT_EQ(j["n_targets"], 700);
  EXPECT_EQ(j["error"]["n_checked"], 700);
  EXPECT_LE(j["error"]["rel_l2"].get<double>(), 1e-6);
}

TEST(Cli, LevelsOffsetChangesLevelsByOne) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const json base = run_json("--input '" + in + "'");
  const json up = run_json("--input '" + in + "' --levels +1");
  const json down = run_json("--input '" + in + "' --levels -1");
  const json plain = run_json("--input '" + in + "' --levels=1");
  const int levels = base["levels"].get<int>();
  EXPECT_EQ(up["levels"].get<int>(), levels + 1);
  EXPECT_EQ(down["levels"].get<int>(), levels - 1);
  EXPECT_EQ(plain["levels"].get<int>(), levels + 1);
  EXPECT_EQ(up["levels_ct"], base["levels_ct"]);
  EXPECT_EQ(down["levels_ct"], base["levels_ct"]);
  EXPECT_EQ(up["level_offset"], 1);
  EXPECT_EQ(down["level_offset"], -1);
}

TEST(Cli, TextReport) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const AppRun r = run_app("--input '" + in + "' --verify --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  for (const char* part : {"2000 sources", "t = ", "D = ", "p = ", "cpu", "leaf boxes", "M2L",
                           "near kernel", "pairs/s", "rel L2"}) {
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
  }
}

TEST(Cli, BundledDataSet) {
  const fs::path bundled = fs::path(MLFMA2D_DATA_DIR) / "plate_n20000.h5";
  if (!fs::exists(bundled)) GTEST_SKIP() << bundled << " not there yet";
  const AppRun r = run_app("--report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "no --input: using bundled data set")) << r.err;
  EXPECT_EQ(json::parse(r.out)["n_sources"], 20000);
}

TEST(Cli, BundledDataSetFoundThroughEnvironment) {
  // MLFMA2D_DATA_DIR (environment) is searched first, so a relocated program finds its data.
  const std::string folder = path("data_dir");
  fs::create_directories(folder);
  fs::copy_file(generated("plate2000.h5", "uniform", 2000), folder + "/plate_n20000.h5",
                fs::copy_options::overwrite_existing);
  const AppRun env = run_app("evaluate --report json", "MLFMA2D_DATA_DIR='" + folder + "'");
  ASSERT_EQ(env.code, 0) << describe(env);
  const json j = json::parse(env.out);
  EXPECT_EQ(j["n_sources"], 2000);
  EXPECT_TRUE(contains(env.err, "no --input: using bundled data set " + folder)) << env.err;
}

TEST(Cli, QuietStderrOnSuccessWhenNotATerminal) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const AppRun r = run_app("evaluate --input '" + in + "' --verify --repeat 2");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.err, "");  // no progress lines: stderr is not a terminal
  EXPECT_TRUE(contains(r.out, "median total of 2")) << r.out;
}

TEST(Cli, MissingInputFileIsExit3NamingIt) {
  const std::string missing = path("no_such_file.h5");
  const AppRun r = run_app("--input '" + missing + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, "mlfma2d: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "no_such_file.h5")) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Cli, Hdf5WithoutSourcesIsExit3) {
  // A result file has /potential but no /sources.
  mlfma2d::ResultFile result;
  result.potential = {1.0, 2.0, 3.0};
  const std::string file = path("not_a_point_set.h5");
  mlfma2d::write_result(file, result);
  const AppRun r = run_app("--input '" + file + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, "mlfma2d: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "sources")) << r.err;
}

TEST(Cli, Hdf5LengthMismatchIsExit3) {
  const std::string file = path("mismatch.h5");
  write_h5_sources(file, 10, 9);
  const AppRun r = run_app("--input '" + file + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, "mlfma2d: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "mismatch.h5")) << r.err;
}

TEST(Cli, CsvMissingFieldIsExit3) {
  const std::string file = path("short_row.csv");
  write_text(file, "x,y,q\n0.1,0.2,1\n0.3,0.4\n0.5,0.6,1\n");
  const AppRun r = run_app("--input '" + file + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, "mlfma2d: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "short_row.csv")) << r.err;
}

TEST(Cli, BadOptionsAreExit2NamingTheOption) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const std::string base = "--input '" + in + "' ";
  struct Case {
    std::string args, must_name;
  };
  const std::vector<Case> cases = {
      {"--ct 0", "--ct"},
      {"--ct -3", "--ct"},
      {"--ct abc", "--ct"},
      {"--ct 15x", "--ct"},
      {"--eps 2", "--eps"},
      {"--eps 0", "--eps"},
      {"--eps nan", "--eps"},
      {"--terms 0", "--terms"},
      {"--terms 61", "--terms"},
      {"--levels x", "'x'"},
      {"--levels 1.5", "--levels"},
      {"--threads 0", "--threads"},
      {"--repeat 0", "--repeat"},
      {"--verify-sample -1", "--verify-sample"},
      {"--report xml", "--report"},
      {"--seed -1", "--seed"},
      {"--gpu-memory lots", "--gpu-memory"},
      {"--backend nosuch", "cpu"},
      {"--eps 1e-6 --terms 10", "--terms"},
      {"--no-such-option", "no-such-option"},
      {"--ct", "ct"},
      {"stray_word", "stray_word"},
      {"--output out.txt", "--output"},
  };
  for (const Case& c : cases) {
    const AppRun r = run_app(base + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, "mlfma2d: error: ")) << c.args << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, c.must_name)) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.args;
  }
  const AppRun levels = run_app(base + "--levels x");
  EXPECT_TRUE(contains(levels.err, "--levels")) << levels.err;
  const AppRun gen = run_app("generate --shape nosuch --n 10 --output '" + path("g.h5") + "'");
  EXPECT_EQ(gen.code, 2) << describe(gen);
  EXPECT_TRUE(contains(gen.err, "uniform")) << gen.err;
  const AppRun gen_n = run_app("generate --shape uniform --n 0 --output '" + path("g.h5") + "'");
  EXPECT_EQ(gen_n.code, 2) << describe(gen_n);
  EXPECT_FALSE(fs::exists(path("g.h5")));
}

TEST(Cli, NoOutputWrittenOrChangedOnError) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const std::string bad = path("short_row2.csv");
  write_text(bad, "x,y,q\n0.1,0.2\n");
  const std::string existing = path("existing.h5");
  write_text(existing, "sentinel");
  const std::string fresh = path("fresh.h5");

  // Bad input data (exit 3), bad option (exit 2), output equal to input (exit 2).
  AppRun r = run_app("--input '" + bad + "' --output '" + existing + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  r = run_app("--input '" + bad + "' --output '" + fresh + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  r = run_app("--input '" + in + "' --ct 0 --output '" + existing + "'");
  EXPECT_EQ(r.code, 2) << describe(r);
  r = run_app("--input '" + in + "' --backend nosuch --output '" + fresh + "'");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_EQ(slurp(existing), "sentinel");
  EXPECT_FALSE(fs::exists(fresh));

  const std::string input_copy = path("plate_copy.h5");
  fs::copy_file(in, input_copy, fs::copy_options::overwrite_existing);
  const std::string before = slurp(input_copy);
  r = run_app("--input '" + input_copy + "' --output '" + input_copy + "'");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--output")) << r.err;
  EXPECT_EQ(slurp(input_copy), before);

  // An output folder that does not exist: exit 3 before any work.
  r = run_app("--input '" + in + "' --output '" + path("no_such_folder/out.h5") + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  // No temporary files left beside the outputs.
  for (const auto& entry : fs::directory_iterator(temp_dir())) {
    const std::string name = entry.path().filename().string();
    EXPECT_FALSE(contains(name, "existing.h5") && name != "existing.h5") << name;
    EXPECT_FALSE(contains(name, "fresh.h5")) << name;
  }
}

TEST(Cli, GenerateWritesRequestedPoints) {
  const std::string file = path("gen_strips.csv");
  const AppRun r = run_app("generate --shape strips --n 321 --seed 9 --output '" + file + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, file)) << r.out;
  const mlfma2d::PointSet p = mlfma2d::read_points(file);
  EXPECT_EQ(p.x.size(), 321u);
  EXPECT_EQ(p.q.size(), 321u);
}
