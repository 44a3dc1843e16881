#pragma once
// A geometry for the near-field back-end tests: points, tree, plan and the NearFieldProblem that
// points into them (so it is neither copied nor moved once made).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
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

/// Calls f(g) on the trees of the point set (shape, separate, kind) at CT 1, 15 and 200, level
/// offsets -2..+3 and each of `sizes` (those the offset does not put past the deepest level),
/// each under a SCOPED_TRACE; stops at the first failure. One-point and empty boxes in deep
/// trees, dense one-leaf groups in shallow ones, long adaptive near lists.
inline void for_each_tree(const std::string& shape, bool separate, TreeKind kind,
                          std::uint64_t seed, std::initializer_list<std::size_t> sizes,
                          const std::function<void(const Geometry&)>& f) {
  for (int ct : {1, 15, 200}) {
    for (int offset = -2; offset <= 3; ++offset) {
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
