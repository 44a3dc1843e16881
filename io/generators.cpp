// PEC point-set generators. Every variate is made here from raw mt19937_64 draws (a sequence the
// standard fixes) with +, *, / and sqrt only (which IEEE 754 rounds exactly), not with std::
// distributions or sin/cos/log (whose results the standards leave open), so a seed gives the
// same points bit for bit with every standard library and maths library.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"

namespace mlfma2d {
namespace {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  // Uniform in [0, 1): the top 53 bits of one draw.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Approximately standard normal: the sum of 12 uniforms less 6 (Irwin-Hall; mean 0, variance
  // 1, tails cut at 6 sigma), which needs no log or cos.
  double normal() {
    double sum = -6.0;
    for (int k = 0; k < 12; ++k) sum += uniform();
    return sum;
  }
  // A direction (c, s) = (cos t, sin t) with t uniform in [0, 2 pi): a point uniform in the unit
  // disk, by rejection, scaled to length 1. The small hole keeps the scaling well conditioned.
  void direction(double* c, double* s) {
    double u, v, r2;
    do {
      u = uniform(-1.0, 1.0);
      v = uniform(-1.0, 1.0);
      r2 = u * u + v * v;
    } while (r2 > 1.0 || r2 < 1e-6);
    const double r = std::sqrt(r2);
    *c = u / r;
    *s = v / r;
  }
  std::uint64_t bits() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

// The names, in the order of Shape.
const char* const kShapeNames[] = {
    "uniform", "disk",     "lshape",       "circle",         "ellipse",
    "strips",  "clusters", "graded-strip", "graded-polygon", "multiscale-clusters"};
enum class Shape {
  kUniform,
  kDisk,
  kLShape,
  kCircle,
  kEllipse,
  kStrips,
  kClusters,
  kGradedStrip,
  kGradedPolygon,
  kMultiscaleClusters
};

constexpr int kClusters = 16;
constexpr double kClusterSigma = 0.02;
// Multiscale clusters: widths 1e-2 * kSigmaRatio^k, k = 0..15, from 1e-2 down to 1e-8 (six
// decades); kSigmaRatio = 10^(-6/15), written out so every library gets the same double.
constexpr double kWidestSigma = 1e-2;
constexpr double kSigmaRatio = 0.39810717055349722;

// The graded polygon: an L-shaped contour (a re-entrant corner among five convex ones), its
// vertices in order; the perimeter is 3.2.
constexpr double kPolygon[][2] = {{0.1, 0.1}, {0.9, 0.1}, {0.9, 0.5},
                                  {0.5, 0.5}, {0.5, 0.9}, {0.1, 0.9}};
constexpr int kPolygonEdges = 6;

bool in_disk(double x, double y) {
  return (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5) < 0.25;
}
bool in_lshape(double x, double y) {
  return x < 0.5 || y < 0.5;
}

// Point i of n of `shape`; `centres` holds the cluster centres as x0, y0, x1, y1, ...
void sample(Shape shape, std::size_t i, std::size_t n, const std::vector<double>& centres, Rng& r,
            double* x, double* y) {
  double c, s;
  switch (shape) {
    case Shape::kUniform:
      *x = r.uniform();
      *y = r.uniform();
      return;
    case Shape::kDisk:
    case Shape::kLShape:  // rejection from the unit square keeps them exactly uniform
      do {
        *x = r.uniform();
        *y = r.uniform();
      } while (!(shape == Shape::kDisk ? in_disk(*x, *y) : in_lshape(*x, *y)));
      return;
    case Shape::kCircle:
    case Shape::kEllipse:
      r.direction(&c, &s);
      *x = 0.5 + 0.5 * c;
      *y = 0.5 + (shape == Shape::kCircle ? 0.5 : 0.2) * s;
      return;
    case Shape::kStrips:  // the first half (rounded up) on the lower strip
      *x = r.uniform();
      *y = i < (n + 1) / 2 ? r.uniform(0.40, 0.41) : r.uniform(0.59, 0.60);
      return;
    case Shape::kClusters:
    case Shape::kMultiscaleClusters: {
      const std::size_t k = r.bits() >> 60;  // one of 16 from the top 4 bits: no modulo bias
      double sigma = kClusterSigma;
      if (shape == Shape::kMultiscaleClusters) {
        sigma = kWidestSigma;
        for (std::size_t j = 0; j < k; ++j) sigma *= kSigmaRatio;
      }
      *x = std::clamp(centres[2 * k] + sigma * r.normal(), 0.0, 1.0);
      *y = std::clamp(centres[2 * k + 1] + sigma * r.normal(), 0.0, 1.0);
      return;
    }
    case Shape::kGradedStrip:
      // cos t for t uniform has the density 1 / (pi sqrt(1 - c^2)): the cosine spacing of
      // boundary-element meshes, refined toward the strip's two edges.
      r.direction(&c, &s);
      *x = 0.5 + 0.45 * c;
      *y = 0.5;
      return;
    case Shape::kGradedPolygon: {
      // An edge with probability proportional to its length (lengths 0.8, 0.4, 0.4, 0.4, 0.4,
      // 0.8 of 3.2), then the cosine spacing along it: refined toward every corner.
      const double u = 3.2 * r.uniform();
      static constexpr double kEnd[kPolygonEdges] = {0.8, 1.2, 1.6, 2.0, 2.4, 3.2};
      int e = 0;
      while (e < kPolygonEdges - 1 && u >= kEnd[e]) ++e;
      r.direction(&c, &s);
      const double t = 0.5 + 0.5 * c;
      const double* a = kPolygon[e];
      const double* b = kPolygon[(e + 1) % kPolygonEdges];
      *x = a[0] + t * (b[0] - a[0]);
      *y = a[1] + t * (b[1] - a[1]);
      return;
    }
  }
}

}  // namespace

std::vector<std::string> point_set_shapes() {
  return {std::begin(kShapeNames), std::end(kShapeNames)};
}

std::size_t generate_points_bytes(std::size_t n, const GeneratedSources& sources) {
  // x, y and the charges drawn for them; nd charges, nd strengths and the orientations.
  const std::size_t nd = sources.densities > 0 ? std::size_t(sources.densities) : 1;
  std::size_t per_point = 3;
  if (sources.charges) per_point += nd - 1;
  if (sources.dipoles) per_point += nd + 2 * (sources.vectors_per_density ? nd : 1);
  return per_point * sizeof(double) * n;
}

PointSet generate_points(const std::string& shape_name, std::size_t n, std::uint64_t seed) {
  const auto names = point_set_shapes();
  const auto it = std::find(names.begin(), names.end(), shape_name);
  if (it == names.end()) {
    throw InvalidInput("unknown point-set shape '" + shape_name + "': valid shapes are " +
                       join(names, ", "));
  }
  if (n < 1) throw InvalidInput("generate_points: n must be at least 1, got 0");
  const auto shape = static_cast<Shape>(it - names.begin());

  // Draw order, part of the reproducibility contract: cluster centres, then per point its
  // position and then its charge.
  Rng rng(seed);
  std::vector<double> centres;
  if (shape == Shape::kClusters || shape == Shape::kMultiscaleClusters) {
    for (int k = 0; k < 2 * kClusters; ++k) centres.push_back(rng.uniform(0.1, 0.9));
  }
  PointSet p;
  p.x.resize(n);
  p.y.resize(n);
  p.q.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    sample(shape, i, n, centres, rng, &p.x[i], &p.y[i]);
    p.q[i] = rng.uniform();
  }
  return p;
}

PointSet generate_points(const std::string& shape, std::size_t n, std::uint64_t seed,
                         const GeneratedSources& sources) {
  const int nd = sources.densities;
  if (nd < 1 || nd > kMaxDensities) {
    throw InvalidInput("generate_points: densities must be in 1.." + std::to_string(kMaxDensities) +
                       ", got " + std::to_string(nd));
  }
  if (!sources.charges && !sources.dipoles) {
    throw InvalidInput("generate_points: the sources carry neither charges nor dipoles");
  }
  PointSet p = generate_points(shape, n, seed);
  p.densities = nd;
  // A second stream of the seed, so that the points and density 0's charges stay those of
  // generate_points(shape, n, seed). Its draws, in order: the other densities' charges, density
  // by density; the dipole strengths, density by density; the orientations, per source (or per
  // density, then per source).
  Rng extra(seed ^ 0x9E3779B97F4A7C15ull);
  if (sources.charges) {
    p.q.resize(std::size_t(nd) * n);
    for (std::size_t k = n; k < p.q.size(); ++k) p.q[k] = extra.uniform();
  } else {
    p.q.clear();
    p.q.shrink_to_fit();
  }
  if (!sources.dipoles) return p;
  p.dipole_strengths.resize(std::size_t(nd) * n);
  for (double& d : p.dipole_strengths) d = extra.uniform();
  p.vectors_per_density = sources.vectors_per_density;
  const std::size_t sets = sources.vectors_per_density ? std::size_t(nd) : 1;
  p.dipole_vectors.resize(2 * sets * n);
  for (std::size_t s = 0; s < sets; ++s) {
    double* vx = p.dipole_vectors.data() + 2 * s * n;
    for (std::size_t j = 0; j < n; ++j) extra.direction(&vx[j], &vx[n + j]);
  }
  return p;
}

}  // namespace mlfma2d
