// Side by side with FMM2D's conventions (issue 22): tests/data/fmm2d_small.txt holds a small set
// and what FMM2D's rfmm2d returned for it (charges, dipoles, both; potential, gradient and
// Hessian; separate targets and self-evaluation; two densities). Under the correspondence of
// docs/math.md section 1.3 -- q = c, d = -dipstr (v = dipvec), phi = pot, E = -grad, H = hess --
// mlfma2d's direct sum and Solver agree with it to rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d {
namespace {

// The file's blocks: name -> rows of numbers.
std::map<std::string, std::vector<std::vector<double>>> read_blocks(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, std::vector<std::vector<double>>> blocks;
  std::string line, name;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      name = line.substr(3);
      blocks[name];
      continue;
    }
    if (line.empty() || line[0] == '#' || name.empty()) continue;
    std::istringstream s(line);
    std::vector<double> row;
    double v;
    while (s >> v) row.push_back(v);
    blocks[name].push_back(row);
  }
  return blocks;
}

struct Small {
  std::vector<double> x, y, tx, ty;
  std::vector<double> q, d, v;  // nd x N; strengths d = -dipstr; v: nd x 2 x N (FMM2D's dipvec)
  int nd = 0;
  std::map<std::string, std::vector<std::vector<double>>> blocks;
};

Small load() {
  Small s;
  s.blocks = read_blocks(std::string(MLFMA2D_SOURCE_DIR) + "/tests/data/fmm2d_small.txt");
  for (const auto& r : s.blocks["sources"]) s.x.push_back(r[1]), s.y.push_back(r[2]);
  for (const auto& r : s.blocks["targets"]) s.tx.push_back(r[1]), s.ty.push_back(r[2]);
  const std::size_t n = s.x.size();
  for (const auto& r : s.blocks["charges"]) s.nd = std::max(s.nd, int(r[0]) + 1);
  s.q.assign(s.nd * n, 0.0);
  s.d.assign(s.nd * n, 0.0);
  s.v.assign(2 * s.nd * n, 0.0);
  for (const auto& r : s.blocks["charges"]) s.q[std::size_t(r[0]) * n + std::size_t(r[1])] = r[2];
  for (const auto& r : s.blocks["dipoles"]) {
    const std::size_t d = std::size_t(r[0]), j = std::size_t(r[1]);
    s.d[d * n + j] = -r[2];  // FMM2D's dipole term carries a minus sign
    s.v[(2 * d) * n + j] = r[3];
    s.v[(2 * d + 1) * n + j] = r[4];
  }
  return s;
}

// The FMM2D block "out WHERE MODE" against our outputs (nd x m each).
void expect_agree(const Small& s, const std::string& block, const Result& r, std::size_t m,
                  double tol, const std::string& who) {
  const auto it = s.blocks.find(block);
  ASSERT_NE(it, s.blocks.end()) << "no block '" << block << "' in fmm2d_small.txt";
  ASSERT_EQ(it->second.size(), std::size_t(s.nd) * m) << block;
  double scale = 0;  // the block's largest magnitude: FMM2D's figures are relative to it
  for (const auto& row : it->second)
    for (std::size_t c = 2; c < row.size(); ++c) scale = std::max(scale, std::abs(row[c]));
  for (const auto& row : it->second) {
    const std::size_t k = std::size_t(row[0]) * m + std::size_t(row[1]);
    const std::string at = who + " " + block + " density " + std::to_string(int(row[0])) +
                           " point " + std::to_string(int(row[1]));
    EXPECT_NEAR(r.potential[k], row[2], tol * scale) << at << ": potential";
    EXPECT_NEAR(r.field_x[k], -row[3], tol * scale) << at << ": E_x = -grad_x";
    EXPECT_NEAR(r.field_y[k], -row[4], tol * scale) << at << ": E_y = -grad_y";
    EXPECT_NEAR(r.hessian_xx[k], row[5], tol * scale) << at << ": H_xx";
    EXPECT_NEAR(r.hessian_xy[k], row[6], tol * scale) << at << ": H_xy";
    EXPECT_NEAR(r.hessian_yy[k], row[7], tol * scale) << at << ": H_yy";
  }
}

Densities densities(const Small& s, const std::string& mode) {
  Densities in;
  if (mode != "dipoles") in.charges = s.q.data();
  if (mode != "charges") {
    in.dipole_strengths = s.d.data();
    in.dipole_vectors = s.v.data();
    in.vectors_per_density = true;  // FMM2D's dipvec(nd, 2, ns)
  }
  return in;
}

Result direct(const Small& s, const std::string& mode, bool self) {
  const std::vector<double>& tx = self ? s.x : s.tx;
  const std::vector<double>& ty = self ? s.y : s.ty;
  const std::size_t all = std::size_t(s.nd) * tx.size();
  Result r;
  for (auto* v :
       {&r.potential, &r.field_x, &r.field_y, &r.hessian_xx, &r.hessian_xy, &r.hessian_yy})
    v->assign(all, 0.0);
  DirectOptions o;
  o.densities = s.nd;
  o.charges = mode != "dipoles";
  o.dipoles = mode != "charges";
  o.field = o.hessian = true;
  direct_sum(s.x, s.y, tx, ty, densities(s, mode), o, {},
             Outputs{r.potential.data(), r.field_x.data(), r.field_y.data(), r.hessian_xx.data(),
                     r.hessian_xy.data(), r.hessian_yy.data()});
  return r;
}

TEST(Fmm2dConventions, DirectSumsAgreeWithFmm2dUnderTheStatedCorrespondence) {
  const Small s = load();
  ASSERT_EQ(s.x.size(), 7u);
  ASSERT_EQ(s.nd, 2);
  for (const char* mode : {"charges", "dipoles", "both"}) {
    expect_agree(s, std::string("out targets ") + mode, direct(s, mode, false), s.tx.size(), 1e-13,
                 "direct_sum");
    expect_agree(s, std::string("out self ") + mode, direct(s, mode, true), s.x.size(), 1e-13,
                 "direct_sum");
  }
}

TEST(Fmm2dConventions, TheSolverAgreesWithFmm2dToo) {
  const Small s = load();
  for (const char* mode : {"charges", "dipoles", "both"}) {
    for (bool self : {false, true}) {
      Options o;
      o.backend = "cpu";
      o.densities = s.nd;
      o.charges = std::string(mode) != "dipoles";
      o.dipoles = std::string(mode) != "charges";
      o.field = o.hessian = true;
      o.eps = 1e-14;
      o.ct = 1;  // a real tree even for 7 points: the far field takes part
      Solver solver = self ? Solver(s.x, s.y, o) : Solver(s.x, s.y, s.tx, s.ty, o);
      const Result r = solver.evaluate(densities(s, mode));
      expect_agree(s, std::string("out ") + (self ? "self " : "targets ") + mode, r,
                   self ? s.x.size() : s.tx.size(), 1e-12, "Solver");
    }
  }
}

}  // namespace
}  // namespace mlfma2d
