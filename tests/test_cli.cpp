// End-to-end tests of the mlfma2d program: runs the built binary (MLFMA2D_APP) on files in a
// temporary folder and checks outputs, reports, error messages and exit codes.
#include <gtest/gtest.h>

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
#include "tests/h5_writer.hpp"
#include "tests/test_util.hpp"

namespace fs = std::filesystem;
using namespace mlfma2d::testing;
using nlohmann::json;

namespace {

// The program refuses the input file with exit 3 and one error line naming `what`.
void expect_bad_input(const std::string& file, const std::string& what) {
  const AppRun r = run_app("--input '" + file + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, "mlfma2d: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, what)) << r.err;
  EXPECT_EQ(r.out, "");
}

json run_json(const std::string& args) {
  const AppRun r = run_app(args + " --report json --quiet");
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.err, "") << describe(r);
  return json::parse(r.out);
}

// A generated point set file, made once per name.
std::string generated(const std::string& name, const std::string& shape, int n, int seed = 3) {
  const std::string file = temp_path(name);
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
  const std::string out = temp_path("plate2000_result.h5");
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
  // The defaults: back end and depth chosen (the GPU back end where a device is found).
  ASSERT_TRUE(j.contains("auto"));
  EXPECT_EQ(j["backend"], j["auto"]["backend"]);
  if (!mlfma2d::near_field_backend_available("shared")) EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["ct"], j["auto"]["ct"]);
  EXPECT_GE(j["ct"].get<int>(), 1);
  EXPECT_EQ(j["auto"]["method"], "cost model");
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
  const std::string out = temp_path("circle1500_result.csv");
  const AppRun r = run_app("--input '" + in + "' --output '" + out + "' --field --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string text = read_file(out);
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
  // An explicit --levels is the papers' tree: CT 15.
  const json base = run_json("--input '" + in + "' --levels 0");
  EXPECT_EQ(base["ct"], 15);
  EXPECT_EQ(base["auto"]["levels_auto"], false);
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
  for (const char* part : {"2000 sources", "t = ", "D = ", "p = ", "back end", "leaf boxes", "M2L",
                           "near kernel", "pairs/s", "rel L2"}) {
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
  }
}

// Where the README calls a command the papers' tree, the command names --tree uniform (the default
// is the adaptive tree), and the one that runs on the CPU reports the uniform tree.
TEST(Cli, TheReadmesPapersCommandsUseTheUniformTree) {
  std::ifstream file(fs::path(MLFMA2D_DATA_DIR).parent_path() / "README.md");
  ASSERT_TRUE(file.good());
  std::vector<std::string> commands;  // the options, without the program's name
  const std::string settings = "papers' settings are `";
  std::string text, line;
  while (std::getline(file, line)) {
    text += line + "\n";
    const std::size_t comment = line.find("  # ");
    if (line.rfind("mlfma2d ", 0) == 0 && comment != std::string::npos &&
        contains(line.substr(comment), "the papers' tree"))
      commands.push_back(line.substr(8, comment - 8));
  }
  for (std::size_t at = text.find(settings); at != std::string::npos;
       at = text.find(settings, at + 1)) {
    const std::size_t begin = at + settings.size();
    commands.push_back(text.substr(begin, text.find('`', begin) - begin));
  }
  EXPECT_GE(commands.size(), 2u);
  int ran = 0;
  for (const std::string& c : commands) {
    EXPECT_TRUE(contains(c, "--tree uniform")) << c;
    if (!contains(c, "--backend cpu ")) continue;
    // Without --verify: the tree is what matters here, and direct summation takes seconds.
    std::string args = c;
    const std::size_t verify = args.find(" --verify");
    if (verify != std::string::npos) args.erase(verify, 9);
    EXPECT_EQ(run_json(args)["tree"], "uniform") << c;
    ++ran;
  }
  EXPECT_EQ(ran, 1);
}

// D is the papers' N / 4^(L-1) (paper 1 eq. 13: empty boxes of the last level counted), and the
// report says so: on a contour it is far below the points in a leaf.
TEST(Cli, DIsNOverTheBoxesOfTheLastLevel) {
  const std::string in = generated("circle2000.h5", "circle", 2000);
  const json j = run_json("--input '" + in + "' --ct 32");
  const int levels = j["levels"].get<int>();
  EXPECT_DOUBLE_EQ(j["D"].get<double>(), 2000 / std::pow(4.0, levels - 1));
  EXPECT_LT(j["D"].get<double>(), j["t"].get<double>() / 10) << j.dump();
  const AppRun r = run_app("--input '" + in + "' --ct 32 --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "D = N/4^(L-1) = ")) << r.out;
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
  const std::string folder = temp_path("data_dir");
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
  expect_bad_input(temp_path("no_such_file.h5"), "no_such_file.h5");
}

TEST(Cli, Hdf5WithoutSourcesIsExit3) {
  // A result file has /potential but no /sources.
  mlfma2d::ResultFile result;
  result.potential = {1.0, 2.0, 3.0};
  const std::string file = temp_path("not_a_point_set.h5");
  mlfma2d::write_result(file, result);
  expect_bad_input(file, "sources");
}

TEST(Cli, Hdf5LengthMismatchIsExit3) {
  const std::string file = temp_path("mismatch.h5");
  {
    H5Writer w(file);
    w.numbers("/sources/x", std::vector<double>(10, 0.25));
    w.numbers("/sources/y", std::vector<double>(10, 0.5));
    w.numbers("/sources/q", std::vector<double>(9, 1.0));
  }
  expect_bad_input(file, "mismatch.h5");
}

TEST(Cli, CsvMissingFieldIsExit3) {
  const std::string file = temp_path("short_row.csv");
  write_file(file, "x,y,q\n0.1,0.2,1\n0.3,0.4\n0.5,0.6,1\n");
  expect_bad_input(file, "short_row.csv");
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
  const AppRun gen = run_app("generate --shape nosuch --n 10 --output '" + temp_path("g.h5") + "'");
  EXPECT_EQ(gen.code, 2) << describe(gen);
  EXPECT_TRUE(contains(gen.err, "uniform")) << gen.err;
  const AppRun gen_n =
      run_app("generate --shape uniform --n 0 --output '" + temp_path("g.h5") + "'");
  EXPECT_EQ(gen_n.code, 2) << describe(gen_n);
  EXPECT_FALSE(fs::exists(temp_path("g.h5")));
}

TEST(Cli, NoOutputWrittenOrChangedOnError) {
  const std::string in = generated("plate2000.h5", "uniform", 2000);
  const std::string bad = temp_path("short_row2.csv");
  write_file(bad, "x,y,q\n0.1,0.2\n");
  const std::string existing = temp_path("existing.h5");
  write_file(existing, "sentinel");
  const std::string fresh = temp_path("fresh.h5");

  // Bad input data (exit 3), bad option (exit 2), output equal to input (exit 2).
  AppRun r = run_app("--input '" + bad + "' --output '" + existing + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  r = run_app("--input '" + bad + "' --output '" + fresh + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  r = run_app("--input '" + in + "' --ct 0 --output '" + existing + "'");
  EXPECT_EQ(r.code, 2) << describe(r);
  r = run_app("--input '" + in + "' --backend nosuch --output '" + fresh + "'");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_EQ(read_file(existing), "sentinel");
  EXPECT_FALSE(fs::exists(fresh));

  const std::string input_copy = temp_path("plate_copy.h5");
  fs::copy_file(in, input_copy, fs::copy_options::overwrite_existing);
  const std::string before = read_file(input_copy);
  r = run_app("--input '" + input_copy + "' --output '" + input_copy + "'");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "--output")) << r.err;
  EXPECT_EQ(read_file(input_copy), before);

  // An output folder that does not exist: exit 3 before any work.
  r = run_app("--input '" + in + "' --output '" + temp_path("no_such_folder/out.h5") + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  // No temporary files left beside the outputs.
  for (const auto& entry : fs::directory_iterator(temp_dir())) {
    const std::string name = entry.path().filename().string();
    EXPECT_FALSE(contains(name, "existing.h5") && name != "existing.h5") << name;
    EXPECT_FALSE(contains(name, "fresh.h5")) << name;
  }
}

TEST(Cli, GenerateWritesRequestedPoints) {
  const std::string file = temp_path("gen_strips.csv");
  const AppRun r = run_app("generate --shape strips --n 321 --seed 9 --output '" + file + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, file)) << r.out;
  const mlfma2d::PointSet p = mlfma2d::read_points(file);
  EXPECT_EQ(p.x.size(), 321u);
  EXPECT_EQ(p.q.size(), 321u);
}
