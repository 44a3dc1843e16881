#pragma once
// A geometry for the near-field back-end tests: points, tree, plan and the NearFieldProblem that
// points into them (so it is neither copied nor moved once made).
#include <cstdint>
#include <string>

#include "mlfma2d/io.hpp"
#include "nearfield/backend.hpp"
#include "solver/plan.hpp"
#include "solver/tree.hpp"

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
/// (seed + 1).
inline void make_geometry(Geometry* g, const std::string& shape, std::size_t n, bool separate,
                          int ct, int offset, std::uint64_t seed) {
  g->pts = generate_points(shape, n, seed);
  if (separate) {
    const PointSet t = generate_points("disk", n / 2 + 1, seed + 1);
    g->pts.tx = t.x;
    g->pts.ty = t.y;
  }
  g->tree = build_tree(g->pts.x, g->pts.y, g->pts.tx, g->pts.ty, ct, offset, nullptr, 0);
  g->plan = build_plan(g->tree, 0);
  NearFieldProblem& p = g->problem;
  p.tree = &g->tree;
  p.plan = &g->plan;
  p.x = g->pts.x.data();
  p.y = g->pts.y.data();
  p.tx = separate ? g->pts.tx.data() : g->pts.x.data();
  p.ty = separate ? g->pts.ty.data() : g->pts.y.data();
}

}  // namespace mlfma2d::testing
