// The point-set generators (each shape in its region, deterministic, its features) and the
// text helpers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "runtime/text.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

using testing::expect_error;
using testing::expect_same_points;
using testing::same_bits;

// Whether (x, y) lies in the stated region of `shape` (contours to rounding).
bool inside(const std::string& shape, double x, double y) {
  const double dx = x - 0.5, dy = y - 0.5;
  const bool square = x >= 0 && x <= 1 && y >= 0 && y <= 1;
  if (shape == "uniform" || shape == "clusters" || shape == "multiscale-clusters") return square;
  if (shape == "graded-strip") return y == 0.5 && x >= 0.05 && x <= 0.95;
  if (shape == "graded-polygon") {  // on one of the L's six edges
    const bool on_x = (y == 0.1 && x >= 0.1 && x <= 0.9) || (y == 0.5 && x >= 0.5 && x <= 0.9) ||
                      (y == 0.9 && x >= 0.1 && x <= 0.5);
    const bool on_y = (x == 0.9 && y >= 0.1 && y <= 0.5) || (x == 0.5 && y >= 0.5 && y <= 0.9) ||
                      (x == 0.1 && y >= 0.1 && y <= 0.9);
    return on_x || on_y;
  }
  if (shape == "disk") return dx * dx + dy * dy <= 0.25;
  if (shape == "lshape") return square && !(x > 0.5 && y > 0.5);
  if (shape == "circle") return std::abs(std::hypot(dx, dy) - 0.5) < 1e-12;
  if (shape == "ellipse") return std::abs(dx * dx / 0.25 + dy * dy / 0.04 - 1) < 1e-12;
  if (shape == "strips") {
    return x >= 0 && x <= 1 && ((y >= 0.40 && y <= 0.41) || (y >= 0.59 && y <= 0.60));
  }
  return false;
}

TEST(Generators, ShapesInOrder) {
  EXPECT_EQ(point_set_shapes(),
            (std::vector<std::string>{"uniform", "disk", "lshape", "circle", "ellipse", "strips",
                                      "clusters", "graded-strip", "graded-polygon",
                                      "multiscale-clusters"}));
}

TEST(Generators, EveryShapeInsideItsRegionAndDeterministic) {
  for (const std::string& shape : point_set_shapes()) {
    SCOPED_TRACE(shape);
    for (std::size_t n : {1, 2, 7, 5000}) {
      const PointSet p = generate_points(shape, n, 11);
      ASSERT_EQ(p.x.size(), n);
      ASSERT_EQ(p.y.size(), n);
      ASSERT_EQ(p.q.size(), n);
      EXPECT_FALSE(p.has_targets());
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(inside(shape, p.x[i], p.y[i])) << i << ": " << p.x[i] << ", " << p.y[i];
        ASSERT_TRUE(p.q[i] >= 0 && p.q[i] < 1) << p.q[i];
      }
      expect_same_points(generate_points(shape, n, 11), p);
    }
    const PointSet a = generate_points(shape, 100, 1), b = generate_points(shape, 100, 2);
    EXPECT_NE(a.x, b.x);
    EXPECT_NE(a.q, b.q);
  }
}

TEST(Generators, ShapeFeatures) {
  const std::size_t n = 4001;
  const PointSet s = generate_points("strips", n, 5);
  std::size_t lower = 0;
  for (double y : s.y) lower += y < 0.5;
  EXPECT_EQ(lower, (n + 1) / 2);

  const PointSet l = generate_points("lshape", n, 5);
  std::size_t left = 0;
  for (double x : l.x) left += x < 0.5;
  EXPECT_NEAR(static_cast<double>(left) / n, 2.0 / 3.0, 0.05);  // 2 of the L's 3 quarters

  // Random angles: a quarter of the contour points in each quadrant.
  for (const std::string shape : {"circle", "ellipse"}) {
    const PointSet e = generate_points(shape, n, 5);
    std::vector<int> quadrant(4, 0);
    for (std::size_t i = 0; i < n; ++i) ++quadrant[(e.x[i] < 0.5) + 2 * (e.y[i] < 0.5)];
    for (int count : quadrant) EXPECT_NEAR(count, n / 4.0, 0.05 * n) << shape;
  }

  // Clusters occupy a small part of the plate: far fewer cells of a 20 x 20 grid than uniform.
  const auto cells_used = [](const PointSet& p) {
    std::set<int> cells;
    for (std::size_t i = 0; i < p.x.size(); ++i) {
      cells.insert(static_cast<int>(p.x[i] * 20) * 21 + static_cast<int>(p.y[i] * 20));
    }
    return cells.size();
  };
  const std::size_t clustered = cells_used(generate_points("clusters", n, 5));
  const std::size_t spread = cells_used(generate_points("uniform", n, 5));
  EXPECT_LT(clustered, spread / 2) << clustered << " vs " << spread;
}

TEST(Generators, UniformTransformIsPinned) {
  // The documented transform of raw mt19937_64 draws, independent of the standard library.
  std::mt19937_64 engine(42);
  const double x = static_cast<double>(engine() >> 11) * 0x1.0p-53;
  const double y = static_cast<double>(engine() >> 11) * 0x1.0p-53;
  const double q = static_cast<double>(engine() >> 11) * 0x1.0p-53;
  const PointSet p = generate_points("uniform", 3, 42);
  EXPECT_EQ(p.x[0], x);
  EXPECT_EQ(p.y[0], y);
  EXPECT_EQ(p.q[0], q);
}

TEST(Generators, BadArguments) {
  expect_error<InvalidInput>([] { generate_points("triangle", 10); },
                             {"'triangle'",
                              "uniform, disk, lshape, circle, ellipse, strips, "
                              "clusters"});
  expect_error<InvalidInput>([] { generate_points("disk", 0); }, {"n must be at least 1"});
}

}  // namespace
}  // namespace mlfma2d

namespace mlfma2d {

TEST(Text, SplitIsTheInverseOfJoin) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split("a,,b", ','), (V{"a", "", "b"}));
  EXPECT_EQ(split("cpu", ','), (V{"cpu"}));
  EXPECT_EQ(split("a,", ','), (V{"a", ""}));
  EXPECT_TRUE(split("", ',').empty());
  for (const V& items : {V{"x", "y", "z"}, V{"", "a", ""}, V{"one"}})
    EXPECT_EQ(split(join(items, ","), ','), items);
}

}  // namespace mlfma2d
