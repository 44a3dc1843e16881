// Each far-field operator against direct sums, with the error falling as p grows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>

#include "farfield/expansions.hpp"
#include "kernel/pair.hpp"
#include "solver/points.hpp"
#include "solver/strengths.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

constexpr int kThreads = 2;

struct Geometry {
  PointSet points;
  Tree tree;
  Plan plan;
  std::vector<double> q;  // tree order
};

Geometry make_setup(std::size_t n = 4000, int ct = 8, const std::string& shape = "uniform",
                    TreeKind kind = TreeKind::Uniform) {
  Geometry s;
  s.points = testing::make_points(shape, n, 11);
  for (auto& v : s.points.q) v = 2 * v - 1;  // mixed signs: no help from cancellation
  s.tree = build_tree(s.points.x, s.points.y, {}, {}, ct, 0, nullptr, kThreads, kind);
  s.plan = build_plan(s.tree, kThreads);
  s.q.resize(n);
  for (std::size_t j = 0; j < n; ++j) s.q[j] = s.points.q[s.tree.src_index[j]];
  return s;
}

// phi(z) = Re[a_0 log(z - c) + sum_k A_k (s/(z - c))^k]
double eval_multipole(const Complex* a, int p, Complex c, double s, Complex z) {
  Complex f = a[0] * std::log(z - c);
  const Complex r = s / (z - c);
  Complex rk = 1;
  for (int k = 1; k <= p; ++k) f += a[k] * (rk *= r);
  return f.real();
}

// phi(z) = Re sum_l B_l ((z - c)/s)^l
double eval_local(const Complex* b, int p, Complex c, double s, Complex z) {
  Complex f = 0, r = (z - c) / s, rl = 1;
  for (int l = 0; l <= p; ++l, rl *= r) f += b[l] * rl;
  return f.real();
}

// Direct potential at z of the tree-ordered sources in [begin, end).
double direct(const Geometry& s, std::int64_t begin, std::int64_t end, Complex z) {
  double phi = 0;
  for (std::int64_t j = begin; j < end; ++j)
    log_pair(z.real(), z.imag(), s.tree.sx[j], s.tree.sy[j], s.q[j], &phi);
  return phi;
}

Complex centre(const Tree& t, int l, std::size_t b) {
  double cx, cy;
  t.centre(l, b, &cx, &cy);
  return {cx, cy};
}

// Relative error over boxes: the expansion of each box with sources at level l, evaluated at
// points 2.5 box sides from its centre, against the direct sum over its sources.
double multipole_error(const Geometry& s, const Expansions& e, int l, int p) {
  const Level& lv = s.tree.level[l];
  const double side = s.tree.box_size(l);
  double num = 0, den = 0;
  for (std::size_t b = 0; b < lv.size(); b += 7) {
    if (!lv.has_sources(b)) continue;
    const Complex c = centre(s.tree, l, b);
    for (Complex dir : {Complex(2.5, 0.3), Complex(-1.1, 2.5), Complex(2.5, -2.5)}) {
      const Complex z = c + side * dir;
      const double ref = direct(s, lv.src_begin[b], lv.src_end[b], z);
      const double got = eval_multipole(&e.multipole[l](0, b), p, c, side, z);
      num += (got - ref) * (got - ref);
      den += ref * ref;
    }
  }
  return std::sqrt(num / den);
}

// The operators `apply` runs on fresh expansions at p = 4, 8, 16, 24: `error` must fall with p
// and end below `tol`.
void expect_converges(const Geometry& s, double tol,
                      const std::function<void(const Operators&, Expansions*)>& apply,
                      const std::function<double(const Expansions&, int)>& error) {
  double last = 1;
  for (int p : {4, 8, 16, 24}) {
    const Operators ops(p);
    Expansions e;
    e.reset(s.tree, p, 1, 0);
    apply(ops, &e);
    const double err = error(e, p);
    EXPECT_LT(err, last) << "p = " << p;
    last = err;
  }
  EXPECT_LT(last, tol);
}

// P2M at the leaves, then M2M up to level `top`: the multipoles of level `top` converge to the
// direct sums below 1e-10.
void expect_multipoles_converge(const Geometry& s, int top) {
  expect_converges(
      s, 1e-10,
      [&](const Operators& ops, Expansions* e) {
        P2M(s.tree, ops, FarSources{s.q.data()}, e, kThreads);
        for (int l = s.tree.levels - 1; l >= top; --l) M2M(s.tree, ops, l, e, kThreads);
      },
      [&](const Expansions& e, int p) { return multipole_error(s, e, top, p); });
}

TEST(FarField, P2MMatchesDirectSumAndConverges) {
  const Geometry s = make_setup();
  expect_multipoles_converge(s, s.tree.levels);  // the leaves: P2M alone
}

TEST(FarField, M2MMatchesDirectSumAndConverges) {
  const Geometry s = make_setup();
  expect_multipoles_converge(s, 3);
}

// Local expansion of box b at level l holding only the interaction list of level `from`
// (an ancestor level of b, or l itself): compare with the direct sum over those lists' sources.
double local_error(const Geometry& s, const Expansions& e, int l, int from, int p) {
  const Tree& t = s.tree;
  const Level& lv = t.level[l];
  const M2LLevel& pairs = s.plan.m2l[from];
  const double side = t.box_size(l);
  double num = 0, den = 0;
  for (std::size_t b = 0; b < lv.size(); b += 5) {
    std::int32_t a = std::int32_t(b);  // ancestor of b at level `from`
    for (int k = l; k > from; --k) a = t.level[k].parent[a];
    const Complex c = centre(t, l, b);
    for (Complex dir : {Complex(0.3, -0.2), Complex(-0.45, 0.45), Complex(0, 0)}) {
      const Complex z = c + side * dir;
      double ref = 0;
      for (std::int64_t i = pairs.target_begin[a]; i < pairs.target_begin[a + 1]; ++i) {
        const Level& src = t.level[from];
        ref += direct(s, src.src_begin[pairs.src[i]], src.src_end[pairs.src[i]], z);
      }
      const double got = eval_local(&e.local[l](0, b), p, c, side, z);
      num += (got - ref) * (got - ref);
      den += ref * ref;
    }
  }
  return std::sqrt(num / den);
}

// The local expansions of the leaf level holding the interaction lists of level `from` only:
// from = L translates them by M2L alone; from = L - 1 moves the multipoles up (M2M), translates
// them there and shifts the locals down (L2L).
TEST(FarField, M2LAndL2LMatchDirectSumAndConverge) {
  const Geometry s = make_setup();
  const int l = s.tree.levels;
  for (int from : {l, l - 1}) {
    SCOPED_TRACE("lists of level " + std::to_string(from));
    expect_converges(
        s, 1e-9,
        [&](const Operators& ops, Expansions* e) {
          P2M(s.tree, ops, FarSources{s.q.data()}, e, kThreads);
          for (int k = l - 1; k >= from; --k) M2M(s.tree, ops, k, e, kThreads);
          M2L(s.tree, s.plan, ops, from, from, e, kThreads);
          for (int k = from + 1; k <= l; ++k) L2L(s.tree, ops, k, e, kThreads);
        },
        [&](const Expansions& e, int p) { return local_error(s, e, l, from, p); });
  }
}

// Every column of the expansions is whole 64-byte lines on a 64-byte boundary (so no 512-bit
// access of a translation splits a line: docs/math.md 3.12), and so are the translations'
// factors; the terms past p, never written by the operators, stay zero through a whole pass
// (P2M, M2M, M2L, L2L), for one density and several.
TEST(FarField, ExpansionColumnsAreWholeCacheLinesAndTheirPaddingStaysZero) {
  const Geometry s = make_setup(3000, 8, "clusters", TreeKind::Adaptive);
  auto on_line = [](const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 64 == 0; };
  for (int p : {4, 9, 18, 30}) {
    const Operators ops(p);
    for (const Scaling& sc : ops.m2l_scale)
      for (const double* f :
           {sc.before.re.data(), sc.before.im.data(), sc.after.re.data(), sc.after.im.data()})
        EXPECT_TRUE(on_line(f)) << "p = " << p;
    EXPECT_TRUE(on_line(ops.m2l_real.data())) << "p = " << p;
    for (int nd : {1, 3}) {
      SCOPED_TRACE("p = " + std::to_string(p) + ", nd = " + std::to_string(nd));
      Expansions e;
      e.reset(s.tree, p, nd, kThreads);
      std::vector<double> q(s.q.size() * std::size_t(nd));
      for (std::size_t j = 0; j < q.size(); ++j) q[j] = s.q[j % s.q.size()] * double(1 + j % 3);
      P2M(s.tree, ops, FarSources{q.data()}, &e, kThreads);
      for (int l = s.tree.levels - 1; l >= 3; --l) M2M(s.tree, ops, l, &e, kThreads);
      M2L(s.tree, s.plan, ops, 3, s.tree.levels, &e, kThreads);
      for (int l = 4; l <= s.tree.levels; ++l) L2L(s.tree, ops, l, &e, kThreads);
      for (int l = 3; l <= s.tree.levels; ++l)
        for (const CMatrix* m : {&e.multipole[l], &e.local[l]}) {
          ASSERT_EQ(m->rows(), expansion_rows(p));
          ASSERT_EQ(m->rows() * Eigen::Index(sizeof(Complex)) % 64, 0);
          EXPECT_TRUE(on_line(m->data())) << "level " << l;
          double padding = 0, terms = 0;
          for (Eigen::Index c = 0; c < m->cols(); ++c)
            for (Eigen::Index k = 0; k < m->rows(); ++k)
              (k <= p ? terms : padding) += std::abs((*m)(k, c));
          EXPECT_EQ(padding, 0.0) << "level " << l;
          EXPECT_GT(terms, 0.0) << "level " << l;  // the pass wrote the terms
        }
    }
  }
}

// The potential and field at the targets, tree order.
struct TargetSums {
  std::vector<double> phi, ex, ey;
  explicit TargetSums(std::size_t n) : phi(n, 0.0), ex(n, 0.0), ey(n, 0.0) {}
};

// The potential and field that `apply` adds at the targets from fresh expansions at p = 4, 8,
// 16, 24, against `ref`: both errors must fall with p and end below phi_tol and field_tol.
void expect_field_converges(
    const Geometry& s, const TargetSums& ref, double phi_tol, double field_tol,
    const std::function<void(const Operators&, Expansions*, const FarOutputs&)>& apply) {
  double last_phi = 1, last_field = 1;
  for (int p : {4, 8, 16, 24}) {
    const Operators ops(p);
    Expansions e;
    e.reset(s.tree, p, 1, 0);
    TargetSums got(s.tree.n_targets());
    apply(ops, &e, FarOutputs{got.phi.data(), got.ex.data(), got.ey.data()});
    const double ephi = error_norms(got.phi, ref.phi).rel_l2;
    const double efield = testing::field_rel_l2(got.ex, got.ey, ref.ex, ref.ey);
    EXPECT_LT(ephi, last_phi) << "p = " << p;
    EXPECT_LT(efield, last_field) << "p = " << p;
    last_phi = ephi;
    last_field = efield;
  }
  EXPECT_LT(last_phi, phi_tol);
  EXPECT_LT(last_field, field_tol);
}

TEST(FarField, L2PPotentialAndFieldMatchDirectSum) {
  const Geometry s = make_setup();
  const Tree& t = s.tree;
  const int l = t.levels;
  // Reference: each target against the sources of its leaf's interaction list.
  const Level& leaf = t.level[t.levels];
  const M2LLevel& pairs = s.plan.m2l[l];
  TargetSums ref(t.n_targets());
  for (std::size_t b = 0; b < leaf.size(); ++b)
    for (std::int64_t i = pairs.target_begin[b]; i < pairs.target_begin[b + 1]; ++i) {
      const std::int32_t src = pairs.src[std::size_t(i)];
      for (std::int64_t k = leaf.tgt_begin[b]; k < leaf.tgt_end[b]; ++k)
        for (std::int64_t j = leaf.src_begin[src]; j < leaf.src_end[src]; ++j)
          log_pair_field(t.tx()[k], t.ty()[k], t.sx[j], t.sy[j], s.q[j], &ref.phi[k], &ref.ex[k],
                         &ref.ey[k]);
    }
  expect_field_converges(s, ref, 1e-10, 1e-9,
                         [&](const Operators& ops, Expansions* e, const FarOutputs& out) {
                           P2M(t, ops, FarSources{s.q.data()}, e, kThreads);
                           M2L(t, s.plan, ops, l, l, e, kThreads);
                           L2P(t, ops, *e, out, kThreads);
                         });
}

// The adaptive tree's operators. A graded contour gives leaves on many levels, hence W and X
// lists on many levels.
Geometry adaptive_setup() {
  return make_setup(6000, 8, "graded-polygon", TreeKind::Adaptive);
}

TEST(FarField, P2LMatchesDirectSumAndConverges) {
  const Geometry s = adaptive_setup();
  const Tree& t = s.tree;
  std::size_t lists = 0;
  double last = 1;
  for (int p : {4, 8, 16, 24}) {
    const Operators ops(p);
    Expansions e;
    e.reset(t, p, 1, 0);
    double num = 0, den = 0;
    P2L(t, s.plan, ops, FarSources{s.q.data()}, &e, kThreads);
    for (int l = 3; l <= t.levels; ++l) {
      const BoxLists& x = s.plan.p2l[l];
      const double side = t.box_size(l);
      for (std::size_t b = 0; b < t.level[l].size(); ++b) {
        if (x.begin[b] == x.begin[b + 1]) continue;
        lists += p == 4 ? 1 : 0;
        const Complex c = centre(t, l, b);
        for (Complex dir : {Complex(0.3, -0.2), Complex(-0.45, 0.45), Complex(0, 0)}) {
          const Complex z = c + side * dir;
          double ref = 0;
          for (std::int64_t k = x.begin[b]; k < x.begin[b + 1]; ++k) {
            const Level& lc = t.at(x.box[k]);
            ref += direct(s, lc.src_begin[x.box[k].box], lc.src_end[x.box[k].box], z);
          }
          const double got = eval_local(&e.local[l](0, b), p, c, side, z);
          num += (got - ref) * (got - ref);
          den += ref * ref;
        }
      }
    }
    const double err = std::sqrt(num / den);
    EXPECT_LT(err, last) << "p = " << p;
    last = err;
  }
  EXPECT_GT(lists, 20u) << "the geometry has X lists";
  EXPECT_LT(last, 1e-9);
}

TEST(FarField, M2PPotentialAndFieldMatchDirectSum) {
  const Geometry s = adaptive_setup();
  const Tree& t = s.tree;
  const NearField& near = s.plan.near;
  ASSERT_GT(s.plan.m2p.box.size(), 20u) << "the geometry has W lists";
  // Reference: each target against the sources of its leaf's W boxes.
  TargetSums ref(t.n_targets());
  for (std::size_t i = 0; i < near.leaves(); ++i)
    for (std::int64_t k = s.plan.m2p.begin[i]; k < s.plan.m2p.begin[i + 1]; ++k) {
      const BoxRef w = s.plan.m2p.box[k];
      const Level& lw = t.at(w);
      for (std::int64_t a = near.leaf_tgt[i]; a < near.leaf_tgt[i + 1]; ++a)
        for (std::int64_t j = lw.src_begin[w.box]; j < lw.src_end[w.box]; ++j)
          log_pair_field(t.tx()[a], t.ty()[a], t.sx[j], t.sy[j], s.q[j], &ref.phi[a], &ref.ex[a],
                         &ref.ey[a]);
    }
  expect_field_converges(s, ref, 1e-9, 1e-8,
                         [&](const Operators& ops, Expansions* e, const FarOutputs& out) {
                           P2M(t, ops, FarSources{s.q.data()}, e, kThreads);
                           for (int l = t.levels - 1; l >= 3; --l) M2M(t, ops, l, e, kThreads);
                           M2P(t, s.plan, ops, *e, out, kThreads);
                         });
}

}  // namespace
}  // namespace mlfma2d

namespace mlfma2d {
namespace {

// The dense matrix of a factored translation: diag(after) R diag(before) (docs/math.md 3.4).
CMatrix from_factored(const RMatrix& R, const Scaling& sc, int n) {
  CMatrix m(n, n);
  for (int l = 0; l < n; ++l)
    for (int k = 0; k < n; ++k) m(l, k) = sc.after.at(l) * R(l, k) * sc.before.at(k);
  return m;
}

// Entry by entry, relative to the largest entry of the entry's row (rows span many magnitudes).
double row_relative_difference(const CMatrix& a, const CMatrix& b) {
  double worst = 0;
  for (Eigen::Index l = 0; l < a.rows(); ++l) {
    const double scale = b.row(l).cwiseAbs().maxCoeff();
    for (Eigen::Index k = 0; k < a.cols(); ++k)
      if (scale > 0) worst = std::max(worst, std::abs(a(l, k) - b(l, k)) / scale);
  }
  return worst;
}

TEST(FarField, FactoredOperatorsEqualTheDenseOnes) {
  for (int p : {4, 16, 30, 60}) {
    const Operators ops(p);
    const int n = p + 1;
    EXPECT_EQ(ops.rows % kWideRows, 0);
    EXPECT_GE(ops.rows, n);
    for (int r = n; r < ops.rows; ++r)  // padding rows are zero
      EXPECT_EQ(ops.m2l_real.row(r).cwiseAbs().sum(), 0.0) << "p " << p;
    for (int q = 0; q < 4; ++q) {
      EXPECT_LE(
          row_relative_difference(from_factored(ops.m2m_real, ops.m2m_scale[q], n), ops.m2m[q]),
          1e-14)
          << "M2M p " << p << " quadrant " << q;
      EXPECT_LE(
          row_relative_difference(from_factored(ops.l2l_real, ops.l2l_scale[q], n), ops.l2l[q]),
          1e-14)
          << "L2L p " << p << " quadrant " << q;
    }
    for (int o = 0; o < kM2LOffsets; ++o) {
      // Each offset's translation is the dense operator's leading block of its terms.
      const int t = ops.m2l_kind_terms[std::size_t(ops.m2l_kind[std::size_t(o)])];
      EXPECT_EQ(t, m2l_terms(p, o));
      CMatrix f = from_factored(ops.m2l_real, ops.m2l_scale[o], t);
      f(0, 0) = ops.m2l_log[o];  // a_0 log(-w), apart
      EXPECT_LE(row_relative_difference(f, ops.m2l[o].topLeftCorner(t, t)), 1e-14)
          << "M2L p " << p << " offset " << o;
    }
  }
}

// The truncation per offset (docs/math.md section 3.4): the nearest offsets keep p + 1 terms,
// the farther ones fewer, and every offset's translation is then no worse than the nearest
// ones' (2x: rounding at p = 45). Sources and targets at the boxes' corners facing each other
// (where the series converge slowest) and inside; the multipole is exact (its p + 1 terms of the
// sources), the error that of the translation and the local expansion, against the direct sum.
TEST(FarField, M2LTruncatedPerOffsetIsNoWorseThanTheNearestOffsets) {
  const Complex corners[] = {{0.5, 0.5}, {-0.5, 0.5}, {0.5, -0.5}, {-0.5, -0.5}};
  const Complex inside[] = {{0.1, -0.3}, {-0.4, 0.2}, {0.33, 0.41}};
  const double q[] = {1.0, -0.7, 0.4, -1.3, 0.9, 0.25, -0.6};
  for (int p : {12, 18, 30, 45}) {
    const Operators ops(p);
    std::vector<double> error(kM2LOffsets);
    int fewer = 0;
    for (int o = 0; o < kM2LOffsets; ++o) {
      const auto d = m2l_offset(o);
      const Complex w(d[0], d[1]);  // source centre, target box at 0, side 1
      std::vector<Complex> src, tgt;
      for (Complex c : corners) src.push_back(w + c), tgt.push_back(c);
      for (Complex c : inside) src.push_back(w + c), tgt.push_back(-c);
      // a_0 = sum q, A_k = -sum q (z - w)^k / k (section 3.2, s = 1).
      Eigen::VectorXcd a = Eigen::VectorXcd::Zero(p + 1);
      for (std::size_t j = 0; j < src.size(); ++j) {
        a(0) += q[j];
        Complex z = 1;
        for (int k = 1; k <= p; ++k) a(k) -= q[j] * (z *= src[j] - w) / double(k);
      }
      const int t = m2l_terms(p, o);
      fewer += t < p + 1 ? 1 : 0;
      const Eigen::VectorXcd b = ops.m2l[o].topLeftCorner(t, t) * a.head(t);
      for (Complex z : tgt) {
        double ref = 0, got = eval_local(b.data(), t - 1, 0, 1, z);
        for (std::size_t j = 0; j < src.size(); ++j) ref += q[j] * std::log(std::abs(z - src[j]));
        error[o] = std::max(error[o], std::abs(got - ref));
      }
    }
    double nearest = 0;
    for (int o = 0; o < kM2LOffsets; ++o)
      if (m2l_terms(p, o) == p + 1) nearest = std::max(nearest, error[o]);
    EXPECT_GE(fewer, 24) << "p " << p << ": the offsets (3, *) keep fewer terms";
    for (int o = 0; o < kM2LOffsets; ++o)
      EXPECT_LE(error[o], 2 * nearest)
          << "p " << p << " offset " << o << " keeps " << m2l_terms(p, o) << " terms";
  }
}

// The far field's outputs reach the caller's order the same way whether they are staged while
// a device works (stage_far_field, then a stream) or added through the permutation after it, and
// whether the permutations are the blocked ones (index_points) or move element by element:
// bitwise, for self-evaluation and separate targets, every output, two densities; the strengths'
// tree order too.
TEST(FarField, StagedOutputsAddTheSameBitsAsThePermutation) {
  const PointSet src = testing::make_points("clusters", 3000, 5);
  const PointSet tgt = testing::make_points("uniform", 2000, 6);
  for (bool self : {true, false}) {
    const Tree tree =
        self ? build_tree(src.x, src.y, {}, {}, 16, 0, nullptr, kThreads, TreeKind::Adaptive)
             : build_tree(src.x, src.y, tgt.x, tgt.y, 16, 0, nullptr, kThreads, TreeKind::Adaptive);
    const std::size_t all = 2 * tree.n_targets();
    std::vector<std::vector<double>> near(5);
    for (int c = 0; c < 5; ++c) near[c] = testing::make_points("uniform", all, 20 + c).x;
    // Near + far in caller order by one of the eight routes (the near field's results already
    // in the outputs, or apart, where a staged GPU evaluation leaves them).
    auto route = [&](bool indexed, bool stage, bool apart) {
      EvaluationArrays arrays;
      if (indexed) arrays.index_points(tree, true, kThreads);
      const FarOutputs far = arrays.far_outputs(tree, 2, true, true, kThreads);
      double* arrays_of[5] = {far.phi, far.ex, far.ey, far.hxx, far.hxy};
      for (int c = 0; c < 5; ++c) {
        const std::vector<double> v = testing::make_points("uniform", all, 40 + c).y;
        std::copy(v.begin(), v.end(), arrays_of[c]);
      }
      std::vector<std::vector<double>> o = near;
      const double* near_apart[5] = {};
      for (int c = 0; c < 5 && apart; ++c) {
        o[c].assign(all, NAN);
        near_apart[c] = near[c].data();
      }
      if (stage) arrays.stage_far_field(tree, 2, true, true, kThreads);
      const Outputs out{o[0].data(), o[1].data(), o[2].data(), o[3].data(), o[4].data(), nullptr};
      arrays.add_far_field(tree, 2, true, true, out, apart ? near_apart : nullptr, kThreads);
      return o;
    };
    const auto scattered = route(false, false, false);
    for (int c = 0; c < 5; ++c) EXPECT_NE(scattered[c], near[c]) << "the far field was added";
    for (bool indexed : {false, true})
      for (bool stage : {false, true})
        for (bool apart : {false, true})
          EXPECT_EQ(route(indexed, stage, apart), scattered)
              << (indexed ? "blocked" : "one by one") << (stage ? ", staged" : ", added")
              << (apart ? ", near apart" : "") << (self ? ", self" : ", separate");
    // Two densities of charges and moments in tree order.
    const std::size_t ns = tree.n_sources();
    const std::vector<double> q = testing::make_points("uniform", 2 * ns, 60).x,
                              m = testing::make_points("uniform", 2 * ns, 61).y;
    Strengths s;
    s.q = q.data(), s.mx = m.data(), s.my = q.data();
    EvaluationArrays one_by_one, blocked;
    blocked.index_points(tree, true, kThreads);
    const FarSources a = one_by_one.tree_order(tree, s, 2, kThreads),
                     b = blocked.tree_order(tree, s, 2, kThreads);
    for (std::size_t k = 0; k < 2 * ns; ++k) {
      ASSERT_EQ(a.q[k], b.q[k]) << k;
      ASSERT_EQ(a.mx[k], b.mx[k]) << k;
      ASSERT_EQ(a.my[k], b.my[k]) << k;
    }
    EXPECT_EQ(a.q[0], q[std::size_t(tree.src_index[0])]);
  }
}

}  // namespace
}  // namespace mlfma2d
