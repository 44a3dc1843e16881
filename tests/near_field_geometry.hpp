#pragma once
// A geometry for the near-field back-end tests: points, tree, plan and the NearFieldProblem that
// points into them (so it is neither copied nor moved once made).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

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
