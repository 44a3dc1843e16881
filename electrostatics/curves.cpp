// The contours' curves (straight segments and circular arcs) and the dielectric regions they
// bound, in normalised coordinates.
#include <algorithm>
#include <cmath>

#include "electrostatics/geometry.hpp"

namespace mlfma2d::es {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Angle difference a - b brought into [0, 2 pi).
double wrap(double a) {
  a = std::fmod(a, 2 * kPi);
  return a < 0 ? a + 2 * kPi : a;
}

}  // namespace

Curve::Curve(double ax_, double ay_, double bx_, double by_, double bulge_)
    : ax(ax_), ay(ay_), bx(bx_), by(by_), bulge(bulge_) {
  if (bulge == 0) return;
  const double dx = bx - ax, dy = by - ay, c = std::hypot(dx, dy);
  sweep = 4 * std::atan(bulge);
  // Signed distance from the chord's midpoint to the centre along the chord's left normal.
  const double d = c * (1 - bulge * bulge) / (4 * bulge);
  cx = 0.5 * (ax + bx) - dy / c * d;
  cy = 0.5 * (ay + by) + dx / c * d;
  r = c * (1 + bulge * bulge) / (4 * std::abs(bulge));
  a0 = std::atan2(ay - cy, ax - cx);
}

double Curve::length() const {
  return arc() ? r * std::abs(sweep) : std::hypot(bx - ax, by - ay);
}

void Curve::at(double t, double* x, double* y) const {
  if (t == 0 || t == 1) {  // the ends exactly, so that neighbours share them
    *x = t == 0 ? ax : bx;
    *y = t == 0 ? ay : by;
    return;
  }
  if (!arc()) {
    *x = ax + (bx - ax) * t;
    *y = ay + (by - ay) * t;
    return;
  }
  const double a = a0 + t * sweep;
  *x = cx + r * std::cos(a);
  *y = cy + r * std::sin(a);
}

void Curve::tangent(double t, double* tx, double* ty) const {
  if (!arc()) {
    const double l = std::hypot(bx - ax, by - ay);
    *tx = (bx - ax) / l;
    *ty = (by - ay) / l;
    return;
  }
  const double a = a0 + t * sweep, s = sweep > 0 ? 1.0 : -1.0;
  *tx = -s * std::sin(a);
  *ty = s * std::cos(a);
}

double Curve::distance(double x, double y) const {
  if (!arc()) {
    const double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    const double t = std::clamp(((x - ax) * dx + (y - ay) * dy) / l2, 0.0, 1.0);
    return std::hypot(x - (ax + t * dx), y - (ay + t * dy));
  }
  const double phi = std::atan2(y - cy, x - cx);
  const double off = sweep > 0 ? wrap(phi - a0) : wrap(a0 - phi);
  if (off <= std::abs(sweep)) return std::abs(std::hypot(x - cx, y - cy) - r);
  return std::min(std::hypot(x - ax, y - ay), std::hypot(x - bx, y - by));
}

void Curve::box(double* xmin, double* xmax, double* ymin, double* ymax) const {
  *xmin = std::min(ax, bx);
  *xmax = std::max(ax, bx);
  *ymin = std::min(ay, by);
  *ymax = std::max(ay, by);
  if (!arc()) return;
  for (int k = 0; k < 4; ++k) {  // the axis extremes the arc passes
    const double a = k * kPi / 2;
    const double off = sweep > 0 ? wrap(a - a0) : wrap(a0 - a);
    if (off > std::abs(sweep)) continue;
    const double x = cx + r * std::cos(a), y = cy + r * std::sin(a);
    *xmin = std::min(*xmin, x);
    *xmax = std::max(*xmax, x);
    *ymin = std::min(*ymin, y);
    *ymax = std::max(*ymax, y);
  }
}

Curve Curve::part(double t0, double t1) const {
  double x0, y0, x1, y1;
  at(t0, &x0, &y0);
  at(t1, &x1, &y1);
  Curve c(x0, y0, x1, y1);
  if (arc()) {  // the same circle, not one recomputed from the rounded ends
    c.cx = cx;
    c.cy = cy;
    c.r = r;
    c.a0 = a0 + t0 * sweep;
    c.sweep = (t1 - t0) * sweep;
    c.bulge = std::tan(c.sweep / 4);
  }
  return c;
}

bool Region::contains(double x, double y) const {
  if (x < xmin || x > xmax || y < ymin || y > ymax) return false;
  bool inside = false;
  // A part from height py to qy crossing the ray at x = xc (half-open in y: a shared vertex
  // counts once).
  auto cross = [&](double py, double qy, double xc) {
    if ((py > y) != (qy > y) && xc > x) inside = !inside;
  };
  for (const Curve& c : curves) {
    if (!c.arc()) {
      if ((c.ay > y) != (c.by > y)) {
        const double xc = c.ax + (y - c.ay) * (c.bx - c.ax) / (c.by - c.ay);
        cross(c.ay, c.by, xc);
      }
      continue;
    }
    // Split at the angles pi/2 + k pi where y turns; each part keeps the sign of cos.
    std::vector<double> cuts{0.0};
    for (int k = -8; k <= 8; ++k) {
      const double a = kPi / 2 + k * kPi, t = (a - c.a0) / c.sweep;
      if (t > 0 && t < 1) cuts.push_back(t);
    }
    cuts.push_back(1.0);
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      double px, py, qx, qy;
      c.at(cuts[i], &px, &py);
      c.at(cuts[i + 1], &qx, &qy);
      if ((py > y) == (qy > y)) continue;
      const double side = std::cos(c.a0 + 0.5 * (cuts[i] + cuts[i + 1]) * c.sweep) >= 0 ? 1 : -1;
      const double s = std::clamp((y - c.cy) / c.r, -1.0, 1.0);
      cross(py, qy, c.cx + side * c.r * std::sqrt(1 - s * s));
    }
  }
  return inside;
}

std::vector<Curve> contour_curves(const Contours& c, std::size_t k, const Frame& f) {
  const long long first = c.offsets[k], m = c.offsets[k + 1] - first;
  const long long segments = c.closed[k] ? m : m - 1;
  std::vector<Curve> out;
  for (long long i = 0; i < segments; ++i) {
    const long long p = first + i, q = first + (i + 1) % m;
    out.emplace_back((c.x[p] - f.cx) / f.scale, (c.y[p] - f.cy) / f.scale,
                     (c.x[q] - f.cx) / f.scale, (c.y[q] - f.cy) / f.scale,
                     c.bulge.empty() ? 0.0 : c.bulge[p]);
  }
  return out;
}

Region make_region(std::vector<Curve> curves, double eps) {
  Region r;
  r.eps = eps;
  double area = 0;
  for (const Curve& c : curves) {
    area += 0.5 * (c.ax * c.by - c.bx * c.ay);                             // the chord
    if (c.arc()) area += 0.5 * c.r * c.r * (c.sweep - std::sin(c.sweep));  // and the cap
    double x0, x1, y0, y1;
    c.box(&x0, &x1, &y0, &y1);
    r.xmin = std::min(r.xmin, x0);
    r.xmax = std::max(r.xmax, x1);
    r.ymin = std::min(r.ymin, y0);
    r.ymax = std::max(r.ymax, y1);
  }
  r.area = std::abs(area);
  r.curves = std::move(curves);
  return r;
}

}  // namespace mlfma2d::es
