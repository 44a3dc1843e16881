#pragma once
// The integral of the log kernel over one straight panel, in closed form (docs/math.md
// section 8.6), and its gradient; Gauss-Legendre rules for the far interactions.
//
// Panel from P0 to P1, length h, unit tangent t, unit normal n = (-t_y, t_x). For a target x,
// u0 = (x - P0).t, v0 = (x - P0).n, and the signed distances along the panel from the target's
// foot to the two ends are a = -u0 and b = h - u0. Then
//   I(x) = integral_0^h log|x - y(u)| du = [d log sqrt(d^2 + v0^2) - d + v0 atan(d / v0)]_a^b
//        = b log r_b - a log r_a - h + |v0| theta,     theta = atan2(|v0| h, v0^2 + a b),
// r_a = |x - P0|, r_b = |x - P1|, theta = the angle the panel subtends at x (0 when v0 = 0).
// Written around the farther end f (the other end is e):
//   b log r_b - a log r_a = h log r_f + e_d * 0.5 * log1p(+-h (a + b) / r_f^2)
// since r_b^2 - r_a^2 = h (a + b): no cancellation for distant targets (log1p), and the e_d log r_e
// term vanishes (as its limit) when the target is at that end. At its own centre a panel gives
// h (log(h/2) - 1).
//   grad I = (log r_a - log r_b) t + sign(v0) theta n
// (theta's jump across the panel is averaged away on it: v0 = 0 gives 0; at an end point the
// gradient is infinite).
#include <cmath>
#include <vector>

namespace mlfma2d::es {

/// \brief One straight panel, by its end points.
struct Segment {
  double x0, y0, x1, y1;
};

/// Local coordinates of (x, y) for a panel: length h, signed distances a, b to the ends along
/// the panel, v0 across it, and the unit tangent.
struct PanelFrame {
  double h, a, b, v, tx, ty;
  PanelFrame(const Segment& s, double x, double y) {
    const double dx = s.x1 - s.x0, dy = s.y1 - s.y0;
    h = std::hypot(dx, dy);
    tx = dx / h;
    ty = dy / h;
    const double px = x - s.x0, py = y - s.y0;
    const double u0 = px * tx + py * ty;
    v = -px * ty + py * tx;
    a = -u0;
    b = h - u0;
  }
  // The subtended angle, in [0, pi].
  double theta() const {
    const double av = std::abs(v);
    return av == 0 ? 0.0 : std::atan2(av * h, v * v + a * b);
  }
};

/// integral over the panel of log|x - y| ds(y).
inline double panel_log_integral(const Segment& s, double x, double y) {
  const PanelFrame f(s, x, y);
  const double ra2 = f.a * f.a + f.v * f.v, rb2 = f.b * f.b + f.v * f.v;
  const double shift = f.h * (f.a + f.b);  // r_b^2 - r_a^2
  // e_d log(r_e^2 / r_f^2) / 2 for the nearer end e: log1p where the two distances are close (far
  // targets), log of the ratio otherwise; 0 at the end itself (e_d log r_e -> 0).
  auto near_end = [](double d, double re2, double rf2, double diff) {
    if (re2 == 0) return 0.0;
    return 0.5 * d * (std::abs(diff) < 0.5 * rf2 ? std::log1p(diff / rf2) : std::log(re2 / rf2));
  };
  const double ends = ra2 >= rb2 ? 0.5 * f.h * std::log(ra2) + near_end(f.b, rb2, ra2, shift)
                                 : 0.5 * f.h * std::log(rb2) - near_end(f.a, ra2, rb2, -shift);
  return ends - f.h + std::abs(f.v) * f.theta();
}

/// grad_x of panel_log_integral: (gx, gy).
inline void panel_log_gradient(const Segment& s, double x, double y, double* gx, double* gy) {
  const PanelFrame f(s, x, y);
  const double ra2 = f.a * f.a + f.v * f.v;
  const double du = -0.5 * std::log1p(f.h * (f.a + f.b) / ra2);  // log r_a - log r_b
  // On the panel (its centre computed in floating point sits within rounding of it, not on it)
  // the principal value: the mean of the two sides, whose jumps +-pi cancel.
  const bool on = std::abs(f.v) <= 1e-12 * f.h && f.a * f.b < 0;
  const double dv = on ? 0.0 : (f.v > 0 ? f.theta() : (f.v < 0 ? -f.theta() : 0.0));
  *gx = du * f.tx - dv * f.ty;
  *gy = du * f.ty + dv * f.tx;
}

/// \brief Gauss-Legendre rule on [-1, 1]: nodes ascending, weights summing to 2.
struct GaussRule {
  std::vector<double> t, w;
};
/// n-point rule (n >= 1), nodes by Newton's method on the Legendre polynomial, to 1e-15.
GaussRule gauss_legendre(int n);

}  // namespace mlfma2d::es
