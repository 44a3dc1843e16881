// Generated contour geometries and the closed forms they are checked against (DESIGN.md 8).
#include <cmath>
#include <string>

#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d {

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

void require(bool ok, const std::string& shape, const std::string& what) {
  if (!ok) throw InvalidInput(shape + ": " + what);
}

void require_positive(const std::string& shape, const char* name, double v) {
  require(std::isfinite(v) && v > 0, shape,
          std::string(name) + " = " + num(v) + " m: expected > 0");
}

// Regular polygon inscribed in the circle, counter-clockwise from angle 0.
void add_circle(Contours* c, double cx, double cy, double r, std::size_t n, int conductor) {
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = 2 * kPi * double(i) / double(n);
    x[i] = cx + r * std::cos(t);
    y[i] = cy + r * std::sin(t);
  }
  c->add(x, y, true, conductor);
}

void add_strip(Contours* c, double x0, double x1, double y, int conductor) {
  c->add({x0, x1}, {y, y}, false, conductor);
}

}  // namespace

double coax_capacitance(double a, double b, double eps_r) {
  require_positive("coax_capacitance", "a", a);
  require(std::isfinite(b) && b > a, "coax_capacitance", "b = " + num(b) + " m: expected > a");
  require_positive("coax_capacitance", "eps_r", eps_r);
  return 2 * kPi * eps_r * kEpsilon0 / std::log(b / a);
}

double eccentric_coax_capacitance(double a, double b, double e, double eps_r) {
  const std::string f = "eccentric_coax_capacitance";
  require_positive(f, "a", a);
  require(std::isfinite(b) && b > a, f, "b = " + num(b) + " m: expected > a");
  require(std::isfinite(e) && e >= 0 && e < b - a, f,
          "e = " + num(e) + " m: expected in [0, b - a)");
  require_positive(f, "eps_r", eps_r);
  return 2 * kPi * eps_r * kEpsilon0 / std::acosh((a * a + b * b - e * e) / (2 * a * b));
}

double two_wire_capacitance(double a, double d, double eps_r) {
  require_positive("two_wire_capacitance", "a", a);
  require(std::isfinite(d) && d > 2 * a, "two_wire_capacitance",
          "d = " + num(d) + " m: expected > 2a (the wires must not touch)");
  require_positive("two_wire_capacitance", "eps_r", eps_r);
  return kPi * eps_r * kEpsilon0 / std::acosh(d / (2 * a));
}

double strip_sigma(double x, double w, double charge) {
  require_positive("strip_sigma", "w", w);
  require(std::isfinite(x) && std::abs(x) < 0.5 * w, "strip_sigma",
          "x = " + num(x) + " m: expected inside the strip, |x| < w/2");
  require(std::isfinite(charge), "strip_sigma", "charge is not finite");
  return charge / (kPi * std::sqrt(0.25 * w * w - x * x));
}

std::vector<std::string> contour_shapes() {
  return {"coax", "eccentric-coax", "two-wire", "strip", "microstrip", "rectangle"};
}

Contours generate_contours(const std::string& shape, const ContourShape& p) {
  Contours c;
  const bool circles = shape == "coax" || shape == "eccentric-coax" || shape == "two-wire";
  if (circles) {
    require(p.vertices >= 3 && p.vertices <= 100000000, shape,
            "vertices = " + std::to_string(p.vertices) + ": expected 3..1e8 per circle");
    require_positive(shape, "a", p.a);
  }
  if (shape == "coax" || shape == "eccentric-coax") {
    require_positive(shape, "b", p.b);
    require(p.a < p.b, shape, "the inner radius a must be less than the outer radius b");
    const double e = shape == "coax" ? 0.0 : p.e;
    require(std::isfinite(e) && e >= 0 && e < p.b - p.a, shape,
            "offset e = " + num(e) + " m: expected 0 <= e < b - a");
    add_circle(&c, 0, 0, p.b, p.vertices, 0);  // the shield: conductor 0
    add_circle(&c, e, 0, p.a, p.vertices, 1);
  } else if (shape == "two-wire") {
    require(std::isfinite(p.d) && p.d > 2 * p.a, shape,
            "centre distance d = " + num(p.d) + " m: expected d > 2a");
    add_circle(&c, -0.5 * p.d, 0, p.a, p.vertices, 0);
    add_circle(&c, 0.5 * p.d, 0, p.a, p.vertices, 1);
  } else if (shape == "strip") {
    require_positive(shape, "w", p.w);
    add_strip(&c, -0.5 * p.w, 0.5 * p.w, 0, 0);
  } else if (shape == "microstrip") {
    require_positive(shape, "w", p.w);
    require_positive(shape, "h", p.h);
    require_positive(shape, "s", p.s);
    require_positive(shape, "ground", p.ground);
    add_strip(&c, -0.5 * p.ground, 0.5 * p.ground, 0, 0);
    add_strip(&c, -0.5 * p.s - p.w, -0.5 * p.s, p.h, 1);
    add_strip(&c, 0.5 * p.s, 0.5 * p.s + p.w, p.h, 2);
  } else if (shape == "rectangle") {
    require_positive(shape, "w", p.w);
    require_positive(shape, "h", p.h);
    const double x = 0.5 * p.w, y = 0.5 * p.h;
    c.add({-x, x, x, -x}, {-y, -y, y, y}, true, 0);
  } else {
    std::string names;
    for (const std::string& s : contour_shapes()) names += (names.empty() ? "" : ", ") + s;
    throw InvalidInput("unknown contour shape '" + shape + "' (shapes: " + names + ")");
  }
  return c;
}

}  // namespace mlfma2d
