// Determinism: with the same inputs and thread count, repeated runs give bitwise identical
// results (library) and output files identical in every value (program; only the timing
// attributes, which measure the run, may differ). The back ends agree to 1e-12 relative.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

namespace fs = std::filesystem;

using testing::same_bits;

struct Case {
  std::string shape;
  bool separate;
  int threads;
};

class Repeated : public ::testing::TestWithParam<Case> {};

TEST_P(Repeated, LibraryResultsAreBitwiseIdentical) {
  const Case c = GetParam();
  PointSet p = testing::make_points(c.shape, 6000, 41);
  for (std::size_t j = 0; j < p.q.size(); j += 2) p.q[j] = -p.q[j];
  if (c.separate) {
    const PointSet t = testing::make_points("disk", 1500, 42);
    p.tx = t.x;
    p.ty = t.y;
  }
  Options o;
  o.threads = c.threads;
  o.field = true;
  o.eps = 1e-9;
  // CT is chosen (the default) from constants cached on disk: a cache of this test's own, so
  // that tests running beside it (recalibrating, or calibrating the same key at the same time)
  // cannot change the constants between the two Solvers. The first measures, the second reads.
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  o.calibration_cache =
      testing::fresh_path("determinism_" + name.substr(name.find_last_of('/') + 1) + ".txt");
  auto make = [&] { return c.separate ? Solver(p.x, p.y, p.tx, p.ty, o) : Solver(p.x, p.y, o); };
  Solver a = make();
  const Result r1 = a.evaluate(p.q);
  const Result r2 = a.evaluate(p.q);  // the same solver again
  Solver b = make();                  // a fresh solver
  const Result r3 = b.evaluate(p.q);
  for (const Result* r : {&r2, &r3}) {
    EXPECT_TRUE(same_bits(r1.potential, r->potential));
    EXPECT_TRUE(same_bits(r1.field_x, r->field_x));
    EXPECT_TRUE(same_bits(r1.field_y, r->field_y));
  }
}

INSTANTIATE_TEST_SUITE_P(ShapesAndThreads, Repeated,
                         ::testing::Values(Case{"uniform", false, 1}, Case{"uniform", false, 2},
                                           Case{"clusters", false, 2}, Case{"circle", false, 3},
                                           Case{"clusters", true, 2}, Case{"strips", true, 4}),
                         [](const auto& info) {
                           return info.param.shape + (info.param.separate ? "_targets" : "_self") +
                                  "_threads" + std::to_string(info.param.threads);
                         });

TEST(BackEnds, AgreeWithTheCpuBackEndTo1e12) {
  const PointSet p = testing::make_points("clusters", 20000, 43);
  Options o;
  o.field = true;
  o.threads = 2;
  o.ct = 32;  // one tree for all (CT automatic would choose per back end)
  const Result ref = Solver(p.x, p.y, o).evaluate(p.q);
  int compared = 0;
  for (const std::string& name : near_field_backends()) {
    if (name == "cpu" || !near_field_backend_available(name)) continue;
    SCOPED_TRACE(name);
    o.backend = name;
    const Result r = Solver(p.x, p.y, o).evaluate(p.q);
    EXPECT_LE(error_norms(r.potential, ref.potential).rel_l2, 1e-12);
    EXPECT_LE(testing::field_rel_l2(r.field_x, r.field_y, ref.field_x, ref.field_y), 1e-12);
    // And each is repeatable on its own.
    const Result again = Solver(p.x, p.y, o).evaluate(p.q);
    EXPECT_LE(error_norms(again.potential, r.potential).rel_l2, 1e-14);
    ++compared;
  }
  if (compared == 0) GTEST_SKIP() << "only the cpu back end can run here";
}

#ifdef MLFMA2D_APP

using testing::read_file;

// Attributes that measure the run itself rather than describe the result (the reason of the
// automatic choice quotes times, and whether the cost model's constants came from the cache;
// the memory estimate starts from the resident size measured before the tree).
bool measures_the_run(const std::string& key) {
  return key.rfind("timing_", 0) == 0 || key.find("per_second") != std::string::npos ||
         key.find("seconds") != std::string::npos || key == "auto_reason" ||
         key.rfind("memory_", 0) == 0;
}

void expect_same_results(const std::string& a, const std::string& b) {
  const ResultFile ra = read_result(a), rb = read_result(b);
  ASSERT_FALSE(ra.potential.empty());
  EXPECT_TRUE(same_bits(ra.potential, rb.potential));
  EXPECT_TRUE(same_bits(ra.field_x, rb.field_x));
  EXPECT_TRUE(same_bits(ra.field_y, rb.field_y));
  EXPECT_TRUE(same_bits(ra.tx, rb.tx));
  EXPECT_TRUE(same_bits(ra.ty, rb.ty));
  ASSERT_EQ(ra.attributes.size(), rb.attributes.size());
  for (const auto& [key, value] : ra.attributes) {
    ASSERT_TRUE(rb.attributes.count(key)) << key;
    if (measures_the_run(key)) continue;
    const AttrValue& other = rb.attributes.at(key);
    EXPECT_EQ(value.is_string, other.is_string) << key;
    EXPECT_EQ(value.text, other.text) << key;
    EXPECT_EQ(std::memcmp(&value.number, &other.number, sizeof(double)), 0) << key;
  }
}

// The data lines of a CSV result (everything but the "# key = value" lines).
std::string data_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) != 0) out += line + "\n";
  }
  return out;
}

TEST(Program, RepeatedRunsWriteTheSameResults) {
  const std::string dir = testing::temp_dir();
  const std::string input = dir + "/det_points.h5", targets = dir + "/det_targets.csv";
  write_points(input, generate_points("clusters", 4000, 44));
  write_points(targets, generate_points("disk", 700, 45));
  // The cost model's constants (CT is chosen) from a cache of this test's own: tests beside it
  // cannot change them between two runs (see LibraryResultsAreBitwiseIdentical).
  const std::string cache = "MLFMA2D_CACHE_DIR='" + testing::fresh_path("det_cache") + "'";
  const auto run_app = [&](const std::string& args) { return testing::run_app(args, cache).code; };
  for (const std::string threads : {"1", "2"}) {
    for (const std::string ext : {".h5", ".csv"}) {
      SCOPED_TRACE("threads " + threads + ", " + ext);
      const std::string a = dir + "/det_a" + ext, b = dir + "/det_b" + ext;
      const std::string common =
          "--input '" + input + "' --field --eps 1e-9 --threads " + threads + " --quiet";
      ASSERT_EQ(run_app(common + " --output '" + a + "'"), 0);
      ASSERT_EQ(run_app(common + " --output '" + b + "'"), 0);
      expect_same_results(a, b);
      if (ext == ".csv") EXPECT_EQ(data_lines(read_file(a)), data_lines(read_file(b)));
      // Separate targets too.
      const std::string with_targets = common + " --targets '" + targets + "'";
      ASSERT_EQ(run_app(with_targets + " --output '" + a + "'"), 0);
      ASSERT_EQ(run_app(with_targets + " --output '" + b + "'"), 0);
      expect_same_results(a, b);
      if (ext == ".csv") EXPECT_EQ(data_lines(read_file(a)), data_lines(read_file(b)));
    }
  }
}

#endif  // MLFMA2D_APP

}  // namespace
}  // namespace mlfma2d
