#pragma once
// A geometry for the near-field back-end tests: points, tree, plan and the NearFieldProblem that
// points into them (so it is neither copied nor moved once made).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "nearfield/backend.hpp"
#include "solver/points.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d::testing {

struct Geometry {
  PointSet pts;
  Tree tree;
  Plan plan;
  NearFieldProblem problem;
  Geometry() = default;
  Geometry(const Geometry&) = delete;
  Geometry& operator=(const Geometry&) = delete;
};

/// `shape` sources (n points, generator seed `seed`); with `separate`, n/2 + 1 "disk" targets
/// (seed + 1); the tree of `kind`.
inline void make_geometry(Geometry* g, const std::string& shape, std::size_t n, bool separate,
                          int ct, int offset, std::uint64_t seed,
                          TreeKind kind = TreeKind::Uniform) {
  g->pts = generate_points(shape, n, seed);
  if (separate) {
    const PointSet t = generate_points("disk", n / 2 + 1, seed + 1);
    g->pts.tx = t.x;
    g->pts.ty = t.y;
  }
  g->tree = build_tree(g->pts.x, g->pts.y, g->pts.tx, g->pts.ty, ct, offset, nullptr, 0, kind);
  // On the adaptive tree, some W boxes and X leaves go to the near field (as the Solver does).
  PlanOptions o;
  o.p2p_below = kind == TreeKind::Adaptive ? 4 : 0;
  g->plan = build_plan(g->tree, 0, o);
  g->problem = make_near_field_problem(g->tree, g->plan, g->pts.x.data(), g->pts.y.data(),
                                       separate ? g->pts.tx.data() : g->pts.x.data(),
                                       separate ? g->pts.ty.data() : g->pts.y.data());
}

/// make_geometry, false (and nothing built) when the offset puts the tree past its deepest level
/// (an adaptive multi-scale set's CT tree may already reach it).
inline bool try_geometry(Geometry* g, const std::string& shape, std::size_t n, bool separate,
                         int ct, int offset, std::uint64_t seed,
                         TreeKind kind = TreeKind::Uniform) {
  try {
    make_geometry(g, shape, n, separate, ct, offset, seed, kind);
  } catch (const InvalidInput& e) {
    if (std::string(e.what()).find("level offset") == std::string::npos) throw;
    return false;
  }
  return true;
}

/// Calls f(g) on the trees of the point set (shape, separate, kind) at each CT of `cts`, level
/// offset of `offsets` and size of `sizes` (those the offset does not put past the deepest
/// level), each under a SCOPED_TRACE; stops at the first failure.
inline void for_each_tree(const std::string& shape, bool separate, TreeKind kind,
                          std::uint64_t seed, std::initializer_list<int> cts,
                          std::initializer_list<int> offsets,
                          std::initializer_list<std::size_t> sizes,
                          const std::function<void(const Geometry&)>& f) {
  for (int ct : cts) {
    for (int offset : offsets) {
      for (std::size_t n : sizes) {
        SCOPED_TRACE("ct " + std::to_string(ct) + ", offset " + std::to_string(offset) + ", n " +
                     std::to_string(n));
        Geometry g;
        if (!try_geometry(&g, shape, n, separate, ct, offset, seed, kind)) continue;
        f(g);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

/// for_each_tree at CT 1, 15 and 200 and level offsets -2..+3: one-point and empty boxes in deep
/// trees, dense one-leaf groups in shallow ones, long adaptive near lists.
inline void for_each_tree(const std::string& shape, bool separate, TreeKind kind,
                          std::uint64_t seed, std::initializer_list<std::size_t> sizes,
                          const std::function<void(const Geometry&)>& f) {
  for_each_tree(shape, separate, kind, seed, {1, 15, 200}, {-2, -1, 0, 1, 2, 3}, sizes, f);
}

/// \brief Near-field sums in caller target order (ex, ey empty without the field).
struct Sums {
  std::vector<double> phi, ex, ey;
  NearFieldTimings timings;
};

/// Back end `name`'s near-field sums on g for the geometry's charges, the outputs poisoned with
/// NaN first so that a target never written shows.
inline Sums run_backend(const std::string& name, const Geometry& g, bool field,
                        std::size_t chunk_targets = 0, std::size_t gpu_memory = 0) {
  NearFieldProblem p = g.problem;
  p.field = field;
  p.chunk_targets = chunk_targets;
  p.gpu_memory = gpu_memory;
  auto backend = make_near_field_backend(name);
  EXPECT_EQ(backend->name(), name);
  backend->setup(p);
  const std::size_t nt = g.tree.n_targets(), nf = field ? nt : 0;
  Sums s{
      std::vector<double>(nt, NAN), std::vector<double>(nf, NAN), std::vector<double>(nf, NAN), {}};
  backend->evaluate(g.pts.q.data(), s.phi.data(), field ? s.ex.data() : nullptr,
                    field ? s.ey.data() : nullptr, &s.timings);
  return s;
}

/// max |a - b| / max |b| (back ends' sums differ in summation order and the last bit of log
/// only); infinite where a holds a NaN (a target never written).
inline double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0, m = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (std::isnan(a[i])) return INFINITY;
    d = std::max(d, std::abs(a[i] - b[i]));
    m = std::max(m, std::abs(b[i]));
  }
  return m > 0 ? d / m : d;
}

/// \brief What one evaluation carries and computes: nd densities of charges, dipoles or both;
/// the potential, and the field and the Hessian where asked.
struct DensityCase {
  int nd = 1;
  bool charges = true, dipoles = false;
  bool field = false, hessian = false;
};

/// "nd 3, dipoles, field + Hessian": a SCOPED_TRACE line.
inline std::string describe(const DensityCase& c) {
  const char* kinds = c.charges && c.dipoles ? "charges + dipoles"
                      : c.dipoles            ? "dipoles"
                                             : "charges";
  const char* outs = c.field && c.hessian ? "field + Hessian"
                     : c.hessian          ? "Hessian"
                     : c.field            ? "field"
                                          : "potential";
  return "nd " + std::to_string(c.nd) + ", " + kinds + ", " + outs;
}

/// Every kind of source (charges, dipoles, both) x outputs (potential, field, Hessian, field +
/// Hessian) for each of `nds`.
inline std::vector<DensityCase> density_cases(std::initializer_list<int> nds) {
  std::vector<DensityCase> out;
  for (int nd : nds)
    for (int kinds = 0; kinds < 3; ++kinds)
      for (int outs = 0; outs < 4; ++outs)
        out.push_back(DensityCase{nd, kinds != 1, kinds != 0, outs == 1 || outs == 3, outs >= 2});
  return out;
}

/// \brief Strengths of nd densities in caller order, nd x n_sources each (empty for a kind not
/// carried): uniform in [-1, 1], every density its own.
struct Strengths {
  std::vector<double> q, mx, my;
  NearSources sources() const {
    return {q.empty() ? nullptr : q.data(), mx.empty() ? nullptr : mx.data(),
            my.empty() ? nullptr : my.data()};
  }
};

inline Strengths make_strengths(std::size_t n, const DensityCase& c, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Strengths s;
  const std::size_t all = std::size_t(c.nd) * n;
  for (std::size_t k = 0; c.charges && k < all; ++k) s.q.push_back(u(gen));
  for (std::size_t k = 0; c.dipoles && k < all; ++k) {
    s.mx.push_back(u(gen));
    s.my.push_back(u(gen));
  }
  return s;
}

/// \brief Near-field sums of nd densities in caller target order, nd x n_targets each (empty
/// where not asked).
struct DensitySums {
  std::vector<double> phi, ex, ey, hxx, hxy;
  NearFieldTimings timings;
  /// Arrays poisoned with NaN, so that a value never written shows.
  DensitySums(std::size_t all, const DensityCase& c) : phi(all, NAN) {
    if (c.field) ex.assign(all, NAN), ey.assign(all, NAN);
    if (c.hessian) hxx.assign(all, NAN), hxy.assign(all, NAN);
  }
  NearOutputs outputs() {
    auto at = [](std::vector<double>& v) { return v.empty() ? nullptr : v.data(); };
    return {at(phi), at(ex), at(ey), at(hxx), at(hxy)};
  }
};

/// The problem of g for case c (and the chunk and memory limits).
inline NearFieldProblem density_problem(const Geometry& g, const DensityCase& c,
                                        std::size_t chunk_targets = 0, std::size_t gpu_memory = 0) {
  NearFieldProblem p = g.problem;
  p.densities = c.nd;
  p.charges = c.charges;
  p.dipoles = c.dipoles;
  p.field = c.field;
  p.hessian = c.hessian;
  p.chunk_targets = chunk_targets;
  p.gpu_memory = gpu_memory;
  return p;
}

/// Back end `name`'s near-field sums on g for strengths s of case c.
inline DensitySums run_backend(const std::string& name, const Geometry& g, const DensityCase& c,
                               const Strengths& s, std::size_t chunk_targets = 0,
                               std::size_t gpu_memory = 0) {
  auto backend = make_near_field_backend(name);
  backend->setup(density_problem(g, c, chunk_targets, gpu_memory));
  DensitySums out(std::size_t(c.nd) * g.tree.n_targets(), c);
  backend->evaluate(s.sources(), out.outputs(), &out.timings);
  return out;
}

/// The worst, over densities and the outputs asked, of max |a - b| / max |b| within one
/// density's row (INFINITY where a holds a NaN), and where it is.
struct DensityDiff {
  double worst = 0;
  std::string where;
};
inline DensityDiff density_diff(const DensitySums& a, const DensitySums& b, int nd) {
  DensityDiff d;
  const char* names[] = {"phi", "ex", "ey", "hxx", "hxy"};
  const std::vector<double>* as[] = {&a.phi, &a.ex, &a.ey, &a.hxx, &a.hxy};
  const std::vector<double>* bs[] = {&b.phi, &b.ex, &b.ey, &b.hxx, &b.hxy};
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(as[k]->size(), bs[k]->size()) << names[k];
    if (as[k]->size() != bs[k]->size() || as[k]->empty()) continue;
    const std::size_t m = as[k]->size() / std::size_t(nd);
    for (int den = 0; den < nd; ++den) {
      const auto row = [&](const std::vector<double>* v) {
        return std::vector<double>(v->begin() + std::ptrdiff_t(den * m),
                                   v->begin() + std::ptrdiff_t((den + 1) * m));
      };
      const double r = rel_diff(row(as[k]), row(bs[k]));
      if (r > d.worst || std::isnan(r)) {
        d.worst = r;
        d.where = std::string(names[k]) + " of density " + std::to_string(den);
      }
    }
  }
  return d;
}

/// EXPECTs a and b agree within tol on every density and output.
inline void expect_density_equivalent(const DensitySums& a, const DensitySums& b, int nd,
                                      double tol = 1e-12) {
  const DensityDiff d = density_diff(a, b, nd);
  EXPECT_LE(d.worst, tol) << "worst at " << d.where;
}

/// \brief A point set of the parametrised near-field tests.
struct SetCase {
  std::string shape;
  bool separate;
  TreeKind kind = TreeKind::Uniform;
};

/// "adaptive_graded_polygon_separate_targets": a test-name part.
inline std::string set_case_name(const SetCase& c) {
  std::string shape = c.shape;
  std::replace(shape.begin(), shape.end(), '-', '_');
  return std::string(tree_kind_name(c.kind)) + "_" + shape +
         (c.separate ? "_separate_targets" : "_self");
}
/// The test name of a parametrised test over SetCase values.
inline std::string set_case_test_name(const ::testing::TestParamInfo<SetCase>& info) {
  return set_case_name(info.param);
}
inline void PrintTo(const SetCase& c, std::ostream* os) {
  *os << set_case_name(c);
}

/// The sets every host-side layout test walks: the papers' uniform tree on the standard sets,
/// the adaptive tree on uniform, graded and multi-scale ones.
inline std::vector<SetCase> near_field_sets() {
  return {SetCase{"uniform", false},
          SetCase{"circle", false},
          SetCase{"clusters", false},
          SetCase{"uniform", true},
          SetCase{"circle", true},
          SetCase{"clusters", true},
          SetCase{"uniform", false, TreeKind::Adaptive},
          SetCase{"graded-strip", false, TreeKind::Adaptive},
          SetCase{"graded-polygon", true, TreeKind::Adaptive},
          SetCase{"multiscale-clusters", false, TreeKind::Adaptive}};
}

}  // namespace mlfma2d::testing
