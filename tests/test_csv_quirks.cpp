// Hand-written CSV with the quirks of real files (CRLF, blank lines, '#' comments, spaces, a
// byte-order mark, columns in another order, no final line break) computes like the clean file:
// through the library's reader and through the program, against direct summation.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

PointSet uniform(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), c(-1, 1);
  PointSet p;
  for (std::size_t i = 0; i < n; ++i) {
    p.x.push_back(u(rng));
    p.y.push_back(u(rng));
    p.q.push_back(c(rng));
  }
  return p;
}

std::string row(double a, double b, double c, const char* format = "%.17g,%.17g,%.17g") {
  char text[128];
  std::snprintf(text, sizeof text, format, a, b, c);
  return text;
}

// Potential and field at (tx, ty) within tol of the direct sums of p.
void expect_within(const PointSet& p, const std::vector<double>& tx, const std::vector<double>& ty,
                   const std::vector<double>& phi, const std::vector<double>& fx,
                   const std::vector<double>& fy, double tol) {
  std::vector<double> rphi, rfx, rfy;
  testing::reference(p.x, p.y, p.q, tx, ty, &rphi, &rfx, &rfy);
  EXPECT_LE(error_norms(phi, rphi).rel_l2, tol);
  EXPECT_LE(testing::field_rel_l2(fx, fy, rfx, rfy), tol);
}

TEST(CsvQuirks, BlankLinesCrlfAndCommentsComputeLikeTheCleanFile) {
  const PointSet p = uniform(300, 31);
  std::string loose = "# a point set written by hand\r\n\r\n  x , y , q \r\n";
  std::string clean = "x,y,q\n";
  for (std::size_t j = 0; j < p.x.size(); ++j) {
    clean += row(p.x[j], p.y[j], p.q[j]) + "\n";
    loose += row(p.x[j], p.y[j], p.q[j]) + (j % 3 ? "\r\n" : "\n");
    if (j % 50 == 0) loose += "\r\n# comment line\r\n\t\r\n";
  }
  loose += "# the end, no line break after the last row";
  const std::string a = testing::temp_path("quirks_loose.csv");
  const std::string b = testing::temp_path("quirks_clean.csv");
  testing::write_file(a, loose);
  testing::write_file(b, clean);
  const PointSet pa = read_points(a), pb = read_points(b);
  EXPECT_EQ(pa.x, p.x);
  EXPECT_EQ(pa.y, p.y);
  EXPECT_EQ(pa.q, p.q);
  EXPECT_EQ(pb.x, p.x);
  Options o;
  o.field = true;
  o.threads = 2;
  const Result r = Solver(pa.x, pa.y, o).evaluate(pa.q);
  expect_within(p, p.x, p.y, r.potential, r.field_x, r.field_y, 1e-6);
}

#ifdef MLFMA2D_APP
TEST(CsvQuirks, ProgramReadsSourcesAndTargetsWithEveryQuirk) {
  const PointSet p = uniform(400, 37);
  std::string sources = "\xEF\xBB\xBF# sources\r\n\r\n q , y , x \r\n";
  for (std::size_t j = 0; j < p.x.size(); ++j) {
    sources += row(p.q[j], p.y[j], p.x[j], " %.17g ,%.17g,\t%.17g") + (j % 2 ? "\r\n" : "\n");
    if (j % 97 == 0) sources += "#\r\n   \r\n";
  }
  const std::string in = testing::temp_path("quirks_sources.csv");
  const std::string tg = testing::temp_path("quirks_targets.csv");
  const std::string out = testing::temp_path("quirks_out.csv");
  testing::write_file(in, sources);
  testing::write_file(tg, "# targets\nx,y\r\n\n2.5,-1\r\n0.5,0.5\n#end\n0.25,0.75");
  for (const bool separate : {false, true}) {
    SCOPED_TRACE(separate ? "separate targets" : "self");
    const testing::AppRun run =
        testing::run_app("--input '" + in + "'" + (separate ? " --targets '" + tg + "'" : "") +
                         " --output '" + out + "' --field --eps 1e-9 --quiet");
    ASSERT_EQ(run.code, 0) << testing::describe(run);
    const ResultFile r = read_result(out);
    const std::vector<double> tx = separate ? std::vector<double>{2.5, 0.5, 0.25} : p.x;
    const std::vector<double> ty = separate ? std::vector<double>{-1, 0.5, 0.75} : p.y;
    ASSERT_EQ(r.potential.size(), tx.size());
    EXPECT_EQ(r.tx, tx);
    expect_within(p, tx, ty, r.potential, r.field_x, r.field_y, 1e-9);
  }
}
#endif  // MLFMA2D_APP

}  // namespace
}  // namespace mlfma2d
