// The program's checks and limits, end to end: exit code 5 for values that are not finite (and
// the --verify verdict in the report), progress on long steps when stderr is not a terminal, a
// run without --output showing its first values, counts written as reals, refusals before work
// (memory, non-regular files), the GPU's absence said once, no temporary file left behind by
// SIGTERM or SIGINT during a write, and a sweep stopped part-way keeping the rows it measured.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"
#include "tests/test_util.hpp"
#include "tuning/model.hpp"

extern char** environ;

namespace fs = std::filesystem;
using namespace mlfma2d::testing;
using nlohmann::json;

namespace {

constexpr int kCheckFailed = 5;

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string points_file(const std::string& name, std::size_t n) {
  const std::string file = temp_path(name);
  if (!fs::exists(file)) mlfma2d::write_points(file, make_points("uniform", n, 3));
  return file;
}

TEST(Checks, VerifyReportsTheToleranceAndPasses) {
  const AppRun r = run_app("--input '" + points_file("checks.h5", 2000) +
                           "' --verify --field --eps 1e-8 "
                           "--report json --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json e = json::parse(r.out)["error"];
  EXPECT_EQ(e["tolerance"].get<double>(), 1e-8);
  EXPECT_EQ(e["passed"], true);
  EXPECT_LE(e["rel_l2"].get<double>(), 1e-8);
}

// --terms: no eps, no tolerance; the report says nothing was checked, everywhere it goes (it said
// "eps = 1e-06" and "tolerance met: yes" at a field error of 6e-3, and wrote error_passed=1).
TEST(Checks, WithTermsTheVerifyReportClaimsNoTolerance) {
  const std::string in = points_file("checks.h5", 2000);
  const std::string out = fresh_path("terms2.h5");
  AppRun r =
      run_app("--input '" + in + "' --terms 2 --field --verify --quiet --output '" + out + "'");
  ASSERT_EQ(r.code, 0) << describe(r);  // nothing was checked: not a failed check
  EXPECT_TRUE(contains(r.out, "\n  tolerance     not checked (--terms given, no tolerance)\n"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "eps =")) << r.out;
  EXPECT_FALSE(contains(r.out, "met:")) << r.out;
  const auto attributes = mlfma2d::read_result(out).attributes;
  for (const char* absent : {"eps", "error_passed", "error_tolerance"}) {
    EXPECT_EQ(attributes.count(absent), 0u) << absent;
  }
  EXPECT_EQ(attributes.at("terms_from").text, "terms");
  EXPECT_GT(attributes.at("error_field_rel_l2").number, 1e-4);  // far from any eps

  r = run_app("--input '" + in + "' --terms 2 --field --verify --quiet --report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json j = json::parse(r.out);
  EXPECT_TRUE(j["eps"].is_null()) << j["eps"];
  EXPECT_TRUE(j["error"]["tolerance"].is_null()) << j["error"];
  EXPECT_TRUE(j["error"]["passed"].is_null()) << j["error"];

  // With eps, the run is judged and says so.
  r = run_app("--input '" + in + "' --eps 1e-3 --field --verify --quiet --report json");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(json::parse(r.out)["error"]["passed"], true);
  EXPECT_EQ(json::parse(r.out)["eps"], 1e-3);
}

// Sources spread over 1e200: the field is about 1e-200, its squares underflow; the field's error
// norms are scaled (they once said 0.000e+00 where the error was 4.8e-9).
TEST(Checks, VerifyMeasuresTheFieldOfHugeExtents) {
  const mlfma2d::PointSet p = mlfma2d::testing::make_points("uniform", 1500, 5);
  std::string csv = "x,y,q\n";
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    csv += mlfma2d::format("%.17g,%.17g,%.17g\n", 1e200 * p.x[i], 1e200 * p.y[i], p.q[i]);
  }
  const std::string in = fresh_path("huge_extent.csv");
  write_file(in, csv);
  const AppRun r =
      run_app("--input '" + in + "' --field --verify --eps 1e-6 --report json --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  const json e = json::parse(r.out)["error"];
  EXPECT_GT(e["field_rel_l2"].get<double>(), 1e-14) << e;  // a measured error, not an underflow
  EXPECT_LE(e["field_rel_l2"].get<double>(), 1e-6) << e;
  EXPECT_GT(e["field_max_abs"].get<double>(), 0) << e;
}

TEST(Checks, ValuesThatAreNotFiniteAreExit5AfterTheReportAndTheOutput) {
  // Two sources 1e-300 apart with charges near the largest double: phi = q log(1e-300) = -inf.
  const std::string in = fresh_path("overflow.csv");
  write_file(in, "x,y,q\n0,0,1e308\n1e-300,0,1e308\n0.5,0.5,1\n");
  const std::string out = fresh_path("overflow_out.h5");
  const AppRun r = run_app("--input '" + in + "' --output '" + out + "' --verify --report json");
  EXPECT_EQ(r.code, kCheckFailed) << describe(r);
  // The warning, then one error line last.
  EXPECT_TRUE(contains(r.err, "warning: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "are not finite (inf or NaN)")) << r.err;
  const std::string last = r.err.substr(r.err.rfind("mlfma2d: error: "));
  EXPECT_EQ(std::count(last.begin(), last.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(contains(last, "not finite")) << last;
  // The report and the output are there, saying so.
  const json j = json::parse(r.out);
  bool said = false;
  for (const auto& w : j["warnings"]) said = said || contains(w.get<std::string>(), "not finite");
  EXPECT_TRUE(said) << j["warnings"];
  EXPECT_EQ(j["error"]["passed"], false);
  EXPECT_EQ(mlfma2d::read_result(out).potential.size(), 3u);
}

TEST(Checks, WithoutOutputTheReportShowsTheFirstValues) {
  const AppRun r = run_app("--input '" + points_file("checks.h5", 2000) + "' --field --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "output          none: --output FILE.h5 or FILE.csv")) << r.out;
  EXPECT_TRUE(contains(r.out, "phi[0] = ")) << r.out;
  EXPECT_TRUE(contains(r.out, "E[2] = (")) << r.out;
}

TEST(Progress, EveryStepWithItsTimeWhenNotATerminal) {
  // MLFMA2D_PROGRESS_AFTER=0: every step counts as long; the default (1 s) keeps short runs
  // silent (Cli.QuietStderrOnSuccessWhenNotATerminal).
  const std::string out = fresh_path("progress.csv");
  const AppRun r =
      run_app("--input '" + points_file("checks.h5", 2000) + "' --verify --output '" + out + "'",
              "MLFMA2D_PROGRESS_AFTER=0");
  ASSERT_EQ(r.code, 0) << describe(r);
  for (const std::string& step : std::vector<std::string>{
           "reading " + points_file("checks.h5", 2000), "building tree and plan", "evaluating",
           "verifying against direct summation", "writing " + out}) {
    EXPECT_TRUE(contains(r.err, step + "...\n")) << step << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, step + ": done in ")) << step << "\n" << r.err;
  }
  const AppRun quiet = run_app("--input '" + points_file("checks.h5", 2000) + "' --quiet",
                               "MLFMA2D_PROGRESS_AFTER=0");
  EXPECT_EQ(quiet.err, "") << describe(quiet);
}

TEST(Generate, CountsMayBeWrittenAsReals) {
  const std::string out = fresh_path("counted.h5");
  AppRun r = run_app("generate --shape disk --n 1e3 --output '" + out + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(mlfma2d::read_points(out).x.size(), 1000u);
  r = run_app("generate --shape disk --n 2.5e3 --output '" + out + "' --quiet");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(mlfma2d::read_points(out).x.size(), 2500u);
  for (const char* bad : {"2.5", "1e30", "-1e3", "0e0", "1e", "nan"}) {
    r = run_app(std::string("generate --shape disk --n ") + bad + " --output '" + out + "'");
    EXPECT_EQ(r.code, 2) << bad << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, "--n: invalid value")) << r.err;
  }
}

TEST(Limits, GenerateRefusesWhatTheMemoryCannotHoldBeforeWork) {
  const std::string out = fresh_path("too_big.h5");
  const AppRun r = run_app("generate --shape uniform --n 1e15 --output '" + out + "'");
  EXPECT_EQ(r.code, 4) << describe(r);
  EXPECT_TRUE(contains(r.err, "generate --n 1000000000000000 needs about 22351741.79 GiB"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "GiB are available")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(Limits, AnEvaluationBeyondTheAddressSpaceLimitIsRefusedBeforeWork) {
#ifdef MLFMA2D_SANITIZE
  GTEST_SKIP() << "ASan maps terabytes of shadow memory: no address-space limit can be set";
#endif
  // Before the tree the check counts the per-point arrays alone (0.36 GiB for 6e6 points): more
  // than the 500 MB of address space leave once the program and the points are mapped, while
  // reading the points still fits.
  const std::string in = points_file("six_million.h5", 6000000);
  const AppRun r = run_app("--input '" + in + "' --quiet", "ulimit -v 500000;");
  EXPECT_EQ(r.code, 4) << describe(r);
  EXPECT_TRUE(contains(r.err, "evaluating 6000000 sources at 6000000 targets needs about"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "ulimit -v")) << r.err;
}

TEST(Limits, NonRegularFilesAreRefusedBeforeWork) {
  const std::string in = points_file("checks.h5", 2000);
  const std::string fifo = fresh_path("no_writer.csv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // `timeout`: a reader blocked on a FIFO without a writer would hang; 124 = hung.
  AppRun r = run_app("--input '" + fifo + "'", "timeout 60");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, "a FIFO, not a regular file")) << r.err;
  const std::string link = fresh_path("out_link.h5");
  fs::create_symlink(temp_path("elsewhere_out.h5"), link);
  r = run_app("--input '" + in + "' --output '" + link + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, "a symbolic link, not a regular file: not replaced")) << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST(Limits, AMissingGpuIsSaidOnce) {
  std::string reason;
  for (const auto& b : mlfma2d::near_field_backend_info()) {
    if (!b.available && b.runs_on_device) reason = "not here";
  }
  if (reason.empty()) GTEST_SKIP() << "every GPU back end can run here";
  const AppRun help = run_app("--help");
  const AppRun compare = run_app("compare --input '" + points_file("checks.h5", 2000) + "'");
  ASSERT_EQ(compare.code, 0) << describe(compare);
  for (const std::string& text : {help.out, compare.err, compare.out}) {
    const std::size_t said = count(text, "no GPU was found") + count(text, "no GPU back ends");
    EXPECT_EQ(said, 1u) << text;
    EXPECT_LE(count(text, "CUDA driver version"), 1u) << text;
  }
}

// Starts the program with `args`, waits until a temporary file `stem`.tmp-PID exists, sends
// `sig`, and returns the wait status.
int interrupt_while_writing(const std::vector<std::string>& args, const std::string& stem,
                            int sig) {
  std::vector<char*> argv;
  const std::string app = MLFMA2D_APP;
  argv.push_back(const_cast<char*>(app.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawn(&pid, app.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
  const std::string tmp = stem + ".tmp-" + std::to_string(pid);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(tmp) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(fs::exists(tmp)) << "no temporary file " << tmp;
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_FALSE(fs::exists(tmp)) << tmp << " left behind";
  return status;
}

TEST(Limits, SignalsDuringAWriteLeaveNoTemporaryFile) {
  for (const int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    const std::string out = fresh_path("interrupted.csv");
    const int status = interrupt_while_writing(
        {"generate", "--shape", "uniform", "--n", "3e6", "--output", out, "--quiet"}, out, sig);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_FALSE(fs::exists(out));
  }
}

// The data rows of a sweep CSV so far (lines after the header that are not comments).
std::size_t data_rows(const std::string& csv) {
  std::ifstream in(csv);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) lines += !line.empty() && line[0] != '#';
  return lines > 0 ? lines - 1 : 0;
}

TEST(Limits, AStoppedSweepKeepsTheRowsItMeasuredAsPartial) {
  // Three small configurations measured at once, then large ones that take seconds each: the
  // signal comes while one of those is measured.
  std::string sizes = "1000,2000,3000";
  for (int i = 0; i < 10; ++i) sizes += ",2000000";
  for (const int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    const std::string dir = fresh_path("stopped_sweep");
    const std::string csv = dir + "/collection.csv", partial = csv + ".partial";
    const std::string app = MLFMA2D_APP;
    std::vector<std::string> args = {
        app, "sweep",      "collection", "--sizes",      sizes, "--repeat",   "1",      "--warmup",
        "0", "--backends", "cpu",        "--output-dir", dir,   "--no-plots", "--quiet"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(::posix_spawn(&pid, app.c_str(), nullptr, nullptr, argv.data(), environ), 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (data_rows(partial) < 3 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ::kill(pid, sig);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_FALSE(fs::exists(csv)) << "a stopped sweep made its final CSV";
    ASSERT_TRUE(fs::exists(partial));
    const auto rows = mlfma2d::tuning::read_sweep_csv(partial);
    ASSERT_GE(rows.size(), 3u);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].backend, "cpu");
      EXPECT_EQ(rows[i].config, long(i + 1));
      EXPECT_EQ(rows[i].n, i < 3 ? 1000.0 * double(i + 1) : 2e6);
      EXPECT_GT(rows[i].near_total, 0);
    }
  }
}

}  // namespace
