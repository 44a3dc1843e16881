// End-to-end tests of compare, sweep, model fit and --backend/--levels auto: runs the built
// program (MLFMA2D_APP) on small generated sets, checks tables, JSON keys, CSV columns, files.
// Back ends that cannot run here (no GPU) are skipped by the program; cpu always runs.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/mlfma2d.hpp"
#include "tests/test_util.hpp"
#include "tuning/model.hpp"

namespace fs = std::filesystem;
using namespace mlfma2d::testing;
using nlohmann::json;

namespace {

// Every run with two OpenMP threads.
AppRun run(const std::string& args) {
  return run_app(args, "OMP_NUM_THREADS=2");
}

std::string points_file() {
  const std::string file = temp_path("cmp_plate3000.h5");
  if (!fs::exists(file)) {
    const AppRun r =
        run("generate --shape uniform --n 3000 --seed 4 --output '" + file + "' --quiet");
    EXPECT_EQ(r.code, 0) << describe(r);
  }
  return file;
}

// The header (first line not starting with '#') of a CSV file, split at commas.
std::vector<std::string> csv_header(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    return cells;
  }
  return {};
}

// The first data row (after the header) of a CSV file, split at commas; empty cells kept.
std::vector<std::string> csv_first_row(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> cells;
    std::size_t start = 0;
    for (std::size_t comma; (comma = line.find(',', start)) != std::string::npos;) {
      cells.push_back(line.substr(start, comma - start));
      start = comma + 1;
    }
    cells.push_back(line.substr(start));
    return cells;
  }
  return {};
}

std::size_t csv_rows(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') ++n;
  return n == 0 ? 0 : n - 1;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST(Compare, TextTableHasACpuRowAndSkipsWhatCannotRun) {
  const AppRun r = run("compare --input '" + points_file() + "' --repeat 2");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(
      contains_all(r.out, {"times (ms)", "\ncpu ", "direct summation at all 3000 targets"}));
  // The table's columns.
  EXPECT_TRUE(contains_all(
      r.out, {"near_collect", "near_transfer", "near_kernel", "near_return", "far", "total",
              "rel L2", "L2 vs cpu", "near/cpu", "near/idx", "device mem", "pairs/s"}));
  // Back ends that cannot run for the same reason share one line (the reason said once).
  auto lines_with = [](const std::string& text, const std::string& head) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.rfind(head, 0) == 0) lines.push_back(line + ",");
    return lines;
  };
  const auto err_lines = lines_with(r.err, "compare: skipping ");
  const auto out_lines = lines_with(r.out, "skipped         ");
  std::size_t unavailable = 0;
  for (const std::string& b : mlfma2d::near_field_backends()) {
    if (mlfma2d::near_field_backend_available(b)) continue;
    ++unavailable;
    auto names = [&](const std::string& line) {
      return contains(line, " " + b + ",") || contains(line, " " + b + ":");
    };
    EXPECT_EQ(std::count_if(err_lines.begin(), err_lines.end(), names), 1) << b << "\n" << r.err;
    EXPECT_EQ(std::count_if(out_lines.begin(), out_lines.end(), names), 1) << b << "\n" << r.out;
  }
  EXPECT_LE(err_lines.size(), unavailable);
  EXPECT_EQ(err_lines.size(), out_lines.size());
}

TEST(Compare, JsonHasTheDocumentedKeys) {
  const AppRun r = run("compare --input '" + points_file() + "' --repeat 3 --report json --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.err, "");
  const json j = json::parse(r.out);
  for (const char* key :
       {"command",   "version",   "construction", "input",      "n_sources", "n_targets",
        "levels",    "levels_ct", "level_offset", "ct",         "t",         "D",
        "terms",     "eps",       "leaf_boxes",   "near_pairs", "threads",   "repeat",
        "reference", "backends",  "skipped"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["command"], "compare");
  EXPECT_EQ(j["n_sources"], 3000);
  ASSERT_GE(j["backends"].size(), 1u);
  const json& cpu = j["backends"][0];
  EXPECT_EQ(cpu["backend"], "cpu");
  EXPECT_EQ(cpu["repeat"], 3);
  EXPECT_EQ(cpu["totals"].size(), 3u);
  for (const char* key :
       {"rel_l2_vs_cpu", "max_abs_vs_cpu", "speedup_vs_cpu", "speedup_vs_indexing", "error",
        "timings", "device_memory", "pairs_per_second"}) {
    EXPECT_TRUE(cpu.contains(key)) << key;
  }
  EXPECT_DOUBLE_EQ(cpu["speedup_vs_cpu"]["near"].get<double>(), 1.0);
  EXPECT_LE(cpu["error"]["rel_l2"].get<double>(), 1e-6);
  EXPECT_FALSE(cpu["error"]["sampled"].get<bool>());
  for (const json& b : j["backends"]) {
    EXPECT_LE(b["rel_l2_vs_cpu"].get<double>(), 1e-12) << b["backend"];
  }
  EXPECT_EQ(j["skipped"].size() + j["backends"].size(), mlfma2d::near_field_backends().size());
}

TEST(Compare, WritesCsvAndHdf5Tables) {
  const std::string csv = temp_path("cmp_table.csv");
  const std::string h5 = temp_path("cmp_table.h5");
  AppRun r = run("compare --input '" + points_file() + "' --quiet --output '" + csv + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  const auto header = csv_header(csv);
  for (const char* column :
       {"backend", "rel_l2", "max_abs", "rel_l2_vs_cpu", "near_collect", "near_transfer",
        "near_kernel", "near_return", "near", "far", "total", "speedup_vs_cpu_near",
        "speedup_vs_indexing_near", "device_memory", "pairs_per_second"}) {
    EXPECT_TRUE(has(header, column)) << column;
  }
  EXPECT_GE(csv_rows(csv), 1u);
  EXPECT_TRUE(contains(read_file(csv), "\ncpu,")) << read_file(csv);
  // Text columns hold their text (the tree's kind was once an empty cell, and NaN in HDF5).
  const auto tree = std::find(header.begin(), header.end(), "tree") - header.begin();
  ASSERT_LT(std::size_t(tree), header.size());
  EXPECT_EQ(csv_first_row(csv).at(tree), "adaptive") << read_file(csv);

  r = run("compare --input '" + points_file() + "' --quiet --output '" + h5 + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  for (const char* name : {"/compare/backend", "/compare/total", "/compare/rel_l2_vs_cpu"}) {
    EXPECT_GT(H5Lexists(f, name, H5P_DEFAULT), 0) << name;
  }
  const hid_t d = H5Dopen2(f, "/compare/total", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  const hid_t space = H5Dget_space(d);
  EXPECT_GE(H5Sget_simple_extent_npoints(space), 1);
  double total = -1;
  hsize_t one = 1, zero = 0;
  const hid_t mem = H5Screate_simple(1, &one, nullptr);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, &zero, nullptr, &one, nullptr);
  EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, &total), 0);
  EXPECT_GT(total, 0);
  H5Sclose(mem);
  H5Sclose(space);
  H5Dclose(d);
  const hid_t tree_set = H5Dopen2(f, "/compare/tree", H5P_DEFAULT);
  ASSERT_GE(tree_set, 0);
  const hid_t tree_type = H5Dget_type(tree_set);
  EXPECT_EQ(H5Tget_class(tree_type), H5T_STRING);
  if (H5Tget_class(tree_type) == H5T_STRING && H5Tis_variable_str(tree_type) > 0) {
    const hid_t tree_space = H5Dget_space(tree_set);
    std::vector<char*> kinds(H5Sget_simple_extent_npoints(tree_space));
    ASSERT_GE(H5Dread(tree_set, tree_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, kinds.data()), 0);
    EXPECT_STREQ(kinds.at(0), "adaptive");
    for (char* kind : kinds) H5free_memory(kind);
    H5Sclose(tree_space);
  }
  H5Tclose(tree_type);
  H5Dclose(tree_set);
  H5Fclose(f);
  // No temporary files left beside the tables.
  for (const auto& entry : fs::directory_iterator(temp_dir())) {
    EXPECT_FALSE(contains(entry.path().filename().string(), "cmp_table.h5.tmp"));
  }
}

TEST(Compare, BadUsageIsExit2) {
  const std::string in = " --input '" + points_file() + "'";
  for (const std::string& args :
       {"compare --backends nosuch" + in, "compare --backend cpu" + in,
        "compare --output table.txt" + in, "compare --backends ,cpu" + in,
        "--model m.json --backend cpu" + in, "compare --model m.json" + in,
        "--ct auto --levels +1" + in, "--levels auto --ct 15" + in, "--backend fast" + in,
        "--levels automatic" + in, std::string("sweep"), std::string("sweep nosuch"),
        std::string("sweep kernel --repeat 0"), std::string("sweep levels --grid-levels 1"),
        std::string("sweep collection extra"), std::string("model"), std::string("model fit"),
        std::string("model predict x.csv")}) {
    const AppRun r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << describe(r);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  }
  const AppRun missing = run("model fit '" + temp_path("no_such.csv") + "'");
  EXPECT_EQ(missing.code, 3) << describe(missing);
  EXPECT_TRUE(contains(missing.err, "no_such.csv")) << missing.err;
}

TEST(Sweep, QuickSweepsWriteTheDocumentedCsvAndModelFitRuns) {
  const std::string dir = temp_path("sweeps");
  struct Case {
    std::string name, extra;
    std::size_t configs;
  };
  const std::vector<Case> cases = {{"collection", "--sizes 1000,2000", 2},
                                   {"kernel", "--sizes 500,2000", 2},
                                   {"levels", "--grid-levels 4,5 --offsets -1,0,1", 6}};
  std::string csvs;
  for (const Case& c : cases) {
    const AppRun r =
        run("sweep " + c.name + " --quick " + c.extra + " --output-dir '" + dir + "' --no-plots");
    ASSERT_EQ(r.code, 0) << describe(r);
    EXPECT_TRUE(contains(r.out, "sweep " + c.name + " (quick)")) << r.out;
    const std::string csv = dir + "/" + c.name + ".csv";
    ASSERT_TRUE(fs::exists(csv)) << csv;
    EXPECT_FALSE(fs::exists(csv + ".partial"));
    EXPECT_EQ(csv_header(csv), mlfma2d::tuning::sweep_csv_columns());
    for (const char* column : {"sweep", "backend", "n", "ct", "level_offset", "levels", "t", "D",
                               "leaf_boxes", "near_pairs", "collect", "transfer", "kernel",
                               "return", "near_total", "device_bytes", "repeat"}) {
      EXPECT_TRUE(has(csv_header(csv), column)) << column;
    }
    const auto rows = mlfma2d::tuning::read_sweep_csv(csv);
    std::size_t cpu_rows = 0;
    for (const auto& row : rows) {
      EXPECT_EQ(row.sweep, c.name);
      EXPECT_EQ(row.repeat, 3);  // --quick's default
      EXPECT_GT(row.near_total, 0);
      EXPECT_LE(row.rel_l2_vs_cpu, 1e-12);
      cpu_rows += row.backend == "cpu";
    }
    EXPECT_EQ(cpu_rows, c.configs) << c.name;
    const json meta = json::parse(read_file(dir + "/" + c.name + "_metadata.json"));
    for (const char* key : {"date", "command_line", "host_cpu", "threads", "backends", "repeat",
                            "backends_skipped", "configurations"}) {
      EXPECT_TRUE(meta.contains(key)) << key;
    }
    EXPECT_TRUE(fs::exists(dir + "/" + c.name + "_model.json"));
    if (c.name == "kernel") {
      // CT and L fixed: one L for every row, chosen from the largest N and documented.
      EXPECT_TRUE(meta.contains("fixed_levels"));
      for (const auto& row : rows) EXPECT_EQ(row.levels, meta["fixed_levels"].get<int>());
      EXPECT_TRUE(contains(read_file(csv), "# L fixed at"));
    }
    if (c.name == "levels") {
      for (const auto& row : rows) EXPECT_EQ(row.n, std::pow(4.0, row.grid_levels - 1));
    }
    csvs += " '" + csv + "'";
  }
  const std::string coeffs = temp_path("coeffs.json");
  const AppRun fit = run("model fit" + csvs + " --output '" + coeffs + "'");
  ASSERT_EQ(fit.code, 0) << describe(fit);
  EXPECT_TRUE(contains(fit.out, "time models")) << fit.out;
  const json c = json::parse(read_file(coeffs));
  EXPECT_EQ(c["format"], "mlfma2d-model-1");
  EXPECT_TRUE(c["time_models"].contains("cpu"));

  // The fitted coefficients drive --backend auto.
  const AppRun a = run("--input '" + points_file() + "' --backend auto --model '" + coeffs +
                       "' --report json --quiet");
  ASSERT_EQ(a.code, 0) << describe(a);
  const json j = json::parse(a.out);
  ASSERT_TRUE(j.contains("auto"));
  EXPECT_EQ(j["auto"]["method"], "model");
  EXPECT_EQ(j["auto"]["backend"], j["backend"]);
}

TEST(Sweep, PlotsArePngsWhenGnuplotIsHere) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "gnuplot is not installed";
  }
  const std::string dir = temp_path("sweep_plots");
  const AppRun r =
      run("sweep levels --quick --grid-levels 4,5 --offsets 0,1 --repeat 1 "
          "--output-dir '" +
          dir + "' --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(fs::exists(dir + "/levels_time_cpu.png")) << r.out;
  EXPECT_TRUE(fs::exists(dir + "/levels_time_cpu.gp"));
}

TEST(Auto, EvaluateReportsWhatWasChosenAndWhy) {
  const AppRun r =
      run("--input '" + points_file() + "' --backend auto --levels auto --report json --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json j = json::parse(r.out);
  ASSERT_TRUE(j.contains("auto"));
  const json& a = j["auto"];
  for (const char* key : {"backend", "level_offset", "levels", "ct", "reason", "method",
                          "predicted_seconds", "measured_seconds", "seconds", "candidates"}) {
    EXPECT_TRUE(a.contains(key)) << key;
  }
  EXPECT_EQ(a["backend"], j["backend"]);
  EXPECT_EQ(a["level_offset"], j["level_offset"]);
  EXPECT_EQ(a["levels"], j["levels"]);
  EXPECT_EQ(a["ct"], j["ct"]);
  EXPECT_EQ(a["method"], "cost model");
  EXPECT_EQ(a["measured_seconds"], j["timings"]["total"]);
  EXPECT_GT(a["predicted_seconds"].get<double>(), 0);
  EXPECT_FALSE(a["reason"].get<std::string>().empty());
  // A local search: the chosen capacity and a neighbour at least; on the CPU (time = far + near)
  // both sides are tried, with a GPU back end (max(far, near)) only the side that can fall.
  ASSERT_GE(a["candidates"].size(), a["backend"] == "cpu" ? 3u : 2u);
  double least = INFINITY;
  for (const json& c : a["candidates"]) least = std::min(least, c["total_seconds"].get<double>());
  EXPECT_EQ(least, a["predicted_seconds"].get<double>());
  const AppRun text = run("--input '" + points_file() + "' --levels auto --quiet");
  ASSERT_EQ(text.code, 0) << describe(text);
  EXPECT_TRUE(contains(text.out, "auto            back end and depth chosen by the cost model"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "predicted")) << text.out;
  EXPECT_TRUE(contains(text.out, "why")) << text.out;
}
