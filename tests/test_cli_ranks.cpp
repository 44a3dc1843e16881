// The program under mpirun (app/ranks.hpp, docs/distributed.md "The program under mpirun"): run
// by this test as `mpirun -np K mlfma2d ...`, K = 1..4 (oversubscribed on small machines). Its
// output file must hold what the one-process program's holds (the same datasets, the values to
// 1e-12: the same CT gives the same tree) with the same attributes, and the ranks' figures in
// the report; a rank with no points, a CSV input (rank 0 reads and scatters), separate targets,
// densities, dipoles and the Hessian; a bad input ends every rank with one code and one message.
// Built only with MPI and the program (tests/CMakeLists.txt).
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/test_util.hpp"

namespace mlfma2d::testing {
namespace {

const std::string kClusters = std::string(MLFMA2D_DATA_DIR) + "/clusters_n10000.h5";

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// `mpirun -np K mlfma2d ARGS`: each rank's exit code is printed on stderr as "[rank R exit C]";
// every rank runs to its end even when one fails (so each says its code; mpirun itself then
// exits 0). The run's code: the ranks' when they agree, else -2.
AppRun run_ranks(int k, const std::string& args) {
  static int counter = 0;
  const std::string stem = temp_path("ranks" + std::to_string(++counter));
  const std::string command =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_orte_abort_on_non_zero_status=0 "
      "OMP_NUM_THREADS=1 MLFMA2D_CACHE_DIR='" +
      temp_path("cache") + "' '" + MLFMA2D_MPIEXEC + "' " + MLFMA2D_MPIEXEC_FLAGS + " -np " +
      std::to_string(k) +
      " sh -c '\"$0\" \"$@\"; c=$?; echo \"[rank ${OMPI_COMM_WORLD_RANK:-$PMI_RANK} exit $c]\" "
      ">&2; exit $c' '" +
      MLFMA2D_APP + "' " + args + " >'" + stem + ".out' 2>'" + stem + ".err' </dev/null";
  const int status = std::system(command.c_str());
  AppRun r;
  r.out = read_file(stem + ".out");
  r.err = read_file(stem + ".err");
  r.code = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? -2 : -1;
  for (int code = 0; code < 256 && r.code == -2; ++code) {
    if (count(r.err, " exit " + std::to_string(code) + "]") == std::size_t(k)) r.code = code;
  }
  return r;
}

// Every rank said exit `code`.
void expect_every_rank_exits(const AppRun& r, int k, int code) {
  for (int rank = 0; rank < k; ++rank) {
    EXPECT_TRUE(
        contains(r.err, "[rank " + std::to_string(rank) + " exit " + std::to_string(code) + "]"))
        << "rank " << rank << "\n"
        << describe(r);
  }
}

double rel(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    s += b[i] * b[i];
  }
  return std::sqrt(d / s);
}

// The output of K ranks against the one-process program's: the same values (to 1e-12), targets
// and attributes (those of one process all there, the tree's equal; distributed_* beside them
// for K > 1).
void expect_same_result(const std::string& one, const std::string& many, int k) {
  const ResultFile a = read_result(one), b = read_result(many);
  ASSERT_EQ(a.potential.size(), b.potential.size());
  EXPECT_EQ(a.densities, b.densities);
  EXPECT_TRUE(same_bits(a.tx, b.tx));
  EXPECT_TRUE(same_bits(a.ty, b.ty));
  EXPECT_LT(rel(b.potential, a.potential), 1e-12);
  for (const auto& [x, y] : {std::pair{&a.field_x, &b.field_x}, {&a.hessian_xy, &b.hessian_xy}}) {
    ASSERT_EQ(x->size(), y->size());
    if (!x->empty()) EXPECT_LT(rel(*y, *x), 1e-12);
  }
  for (const auto& [key, value] : a.attributes) {
    ASSERT_TRUE(b.attributes.count(key)) << key << " missing with " << k << " ranks";
  }
  // (The work figures are summed over the ranks: a box two ranks share counts twice.)
  for (const char* key : {"n_sources", "n_targets", "densities", "sources", "outputs", "levels",
                          "leaf_boxes", "terms", "ct", "near_pairs", "backend"}) {
    const AttrValue &x = a.attributes.at(key), &y = b.attributes.at(key);
    EXPECT_EQ(x.text, y.text) << key;
    EXPECT_EQ(x.number, y.number) << key;
  }
  EXPECT_EQ(b.attributes.count("distributed_ranks"), k > 1 ? 1u : 0u);
  if (k > 1) EXPECT_EQ(b.attributes.at("distributed_ranks").integer, k);
}

TEST(CliRanks, OutputEqualsTheOneProcessProgramsOnOneToFourRanks) {
  const std::string args = "--input '" + kClusters + "' --ct 32 --field --backend cpu --quiet";
  const std::string one = fresh_path("one.h5");
  AppRun r = run_app(args + " --output '" + one + "'", "OMP_NUM_THREADS=1");
  ASSERT_EQ(r.code, 0) << describe(r);
  for (int k = 1; k <= 4; ++k) {
    const std::string many = fresh_path("ranks" + std::to_string(k) + ".h5");
    r = run_ranks(k, args + " --output '" + many + "'");
    ASSERT_EQ(r.code, 0) << describe(r);
    expect_every_rank_exits(r, k, 0);
    // The report once, with a line a rank beyond one.
    EXPECT_EQ(count(r.out, "mlfma2d 0"), 1u) << r.out;
    EXPECT_EQ(count(r.out, "\nranks "), k > 1 ? 1u : 0u) << r.out;
    expect_same_result(one, many, k);
  }
}

TEST(CliRanks, DensitiesDipolesHessianSeparateTargetsToCsvWithVerify) {
  const std::string points = fresh_path("nd2.h5");
  write_points(points, mixed_sources_with_targets(2, 3000, 3, 777, 4));
  const std::string args = "--input '" + points + "' --ct 20 --hessian --field --backend cpu";
  const std::string one = fresh_path("nd2_one.csv"), many = fresh_path("nd2_many.csv");
  AppRun r = run_app(args + " --quiet --output '" + one + "'", "OMP_NUM_THREADS=1");
  ASSERT_EQ(r.code, 0) << describe(r);
  r = run_ranks(3, args + " --verify --report json --output '" + many + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  expect_same_result(one, many, 3);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["distributed"]["ranks"], 3);
  EXPECT_EQ(j["distributed"]["per_rank"].size(), 3u);
  EXPECT_EQ(j["n_targets"], 777);
  EXPECT_TRUE(j["error"]["passed"].get<bool>());
  EXPECT_EQ(j["error"]["n_checked"], 777);
  EXPECT_GT(j["distributed"]["imbalance"].get<double>(), 0.99);
  // Every rank's figures add up to the points: each target once.
  std::size_t targets = 0;
  for (const auto& f : j["distributed"]["per_rank"])
    targets += f["caller_targets"].get<std::size_t>();
  EXPECT_EQ(targets, 777u);
}

TEST(CliRanks, ARankWithNoPointsAndACsvInput) {
  // Three points over four ranks: the last rank reads none. CSV: rank 0 reads, then scatters.
  const std::string csv = fresh_path("three.csv");
  write_file(csv, "x,y,q\n0,0,1\n0.5,0.25,-2\n1,1,0.5\n");
  const std::string one = fresh_path("three_one.h5"), many = fresh_path("three_many.h5");
  AppRun r = run_app("--input '" + csv + "' --ct 1 --field --quiet --output '" + one + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  r = run_ranks(4, "--input '" + csv + "' --ct 1 --field --quiet --verify --output '" + many + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  expect_same_result(one, many, 4);
}

TEST(CliRanks, ABadInputEndsEveryRankWithOneCodeAndMessage) {
  // A NaN in the second half: only rank 1 of 2 reads it; both end with exit 3, one message.
  const std::string bad = fresh_path("nan.h5");
  PointSet p = generate_points("uniform", 100, 1);
  p.x[90] = std::nan("");
  {
    // write_points refuses nothing finite-wise; the reader must.
    write_points(bad, p);
  }
  AppRun r = run_ranks(2, "--input '" + bad + "' --quiet");
  EXPECT_EQ(r.code, 3) << describe(r);
  expect_every_rank_exits(r, 2, 3);
  EXPECT_EQ(count(r.err, "mlfma2d: error:"), 1u) << describe(r);
  EXPECT_TRUE(contains(r.err, "mlfma2d: error: rank 1: " + bad + ": /sources/x[90] is NaN"))
      << describe(r);
  // A missing file: every rank fails alike.
  r = run_ranks(3, "--input '" + temp_path("missing.h5") + "' --quiet");
  EXPECT_EQ(r.code, 3) << describe(r);
  expect_every_rank_exits(r, 3, 3);
  EXPECT_EQ(count(r.err, "mlfma2d: error:"), 1u) << describe(r);
  EXPECT_TRUE(contains(r.err, "no such file")) << describe(r);
  // A command that runs as one process refuses, on every rank.
  r = run_ranks(2, "generate --shape uniform --n 10 --output '" + temp_path("g.h5") + "'");
  EXPECT_EQ(r.code, 2) << describe(r);
  expect_every_rank_exits(r, 2, 2);
  EXPECT_TRUE(contains(r.err, "generate runs as one process")) << describe(r);
}

TEST(CliRanks, SolveOverRanksEqualsOneProcess) {
  const std::string geom = fresh_path("wires.h5");
  AppRun r = run_app("generate --shape two-wire --output '" + geom + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string args = "solve --input '" + geom +
                           "' --panels 2000 --backend cpu --ct 24 --report json --quiet --output ";
  const std::string one = fresh_path("sol_one.h5"), many = fresh_path("sol_many.h5");
  r = run_app(args + "'" + one + "'", "OMP_NUM_THREADS=1");
  ASSERT_EQ(r.code, 0) << describe(r);
  const nlohmann::json a = nlohmann::json::parse(r.out);
  r = run_ranks(3, args + "'" + many + "'");
  ASSERT_EQ(r.code, 0) << describe(r);
  expect_every_rank_exits(r, 3, 0);
  const nlohmann::json b = nlohmann::json::parse(r.out);  // rank 0's report alone
  EXPECT_EQ(b["ranks"], 3);
  EXPECT_FALSE(a.contains("ranks"));
  const double ca = a["capacitance"][0][0].get<double>(), cb = b["capacitance"][0][0].get<double>();
  EXPECT_NEAR(cb, ca, 1e-8 * ca);
  EXPECT_EQ(datasets(one), datasets(many));
  // A bad contour file: every rank ends with exit 3, one message.
  r = run_ranks(2, "solve --input '" + temp_path("none.h5") + "'");
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_EQ(count(r.err, "mlfma2d: error:"), 1u) << describe(r);
}

}  // namespace
}  // namespace mlfma2d::testing
