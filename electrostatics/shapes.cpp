// Generated contour geometries and the closed forms they are checked against (docs/math.md
// section 8.12).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "electrostatics/geometry.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d {

namespace {

using es::num;

constexpr double kPi = 3.14159265358979323846;
// Impedance of free space, 1 / (eps0 c): the value the solver's Z0 = sqrt(L / C) implies.
constexpr double kEta0 = 1 / (kEpsilon0 * 299792458.0);

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

void require_at_least_one(const std::string& shape, const char* name, double v) {
  require(std::isfinite(v) && v >= 1, shape,
          std::string(name) + " = " + num(v) + ": expected >= 1");
}

void require_thickness(const std::string& shape, double t) {
  require(std::isfinite(t) && t >= 0, shape, "t = " + num(t) + " m: expected >= 0");
}

// An exact circle: two vertices on the x axis of the centre, each starting a counter-clockwise
// half circle (bulge 1).
void add_arc_circle(Contours* c, double cx, double cy, double r, int conductor, double eps_r) {
  const std::vector<double> x = {cx + r, cx - r}, y = {cy, cy}, bulge = {1.0, 1.0};
  if (conductor == kDielectric) {
    c->add_region(x, y, eps_r, bulge);
  } else {
    c->add(x, y, true, conductor, bulge);
  }
}

// Counter-clockwise rectangle [x0, x1] x [y0, y1], its first side the bottom one.
void rectangle(double x0, double x1, double y0, double y1, std::vector<double>* x,
               std::vector<double>* y) {
  *x = {x0, x1, x1, x0};
  *y = {y0, y0, y1, y1};
}

// A trace [x0, x1] on top of a substrate of height h: an open strip on y = h (t = 0), else a
// closed rectangle whose bottom side lies on y = h. The same doubles as the substrate's side.
void add_trace(Contours* c, double x0, double x1, double h, double t, int conductor) {
  if (t == 0) {
    add_strip(c, x0, x1, h, conductor);
    return;
  }
  std::vector<double> x, y;
  rectangle(x0, x1, h, h + t, &x, &y);
  c->add(x, y, true, conductor);
}

// The substrate region [-W/2, W/2] x [0, h] on the ground plane y = 0.
void add_substrate(Contours* c, double half_width, double h, double eps_r) {
  std::vector<double> x, y;
  rectangle(-half_width, half_width, 0, h, &x, &y);
  c->add_region(x, y, eps_r);
}

// Half the substrate width: `ground` / 2, or with ground = 0 ten times (metal span + h), the
// span being the width the traces and gaps cover over the substrate's middle.
double substrate_half_width(const std::string& shape, const ContourShape& p, double span) {
  require(std::isfinite(p.ground) && p.ground >= 0, shape,
          "ground = " + num(p.ground) + " m: expected >= 0 (0: 20 (span + h))");
  const double half = p.ground > 0 ? 0.5 * p.ground : 10 * (span + p.h);
  require(half > 0.5 * span, shape,
          "ground = " + num(p.ground) + " m: the substrate must be wider than the metal on it (" +
              num(span) + " m)");
  return half;
}

// The parameters every line shape on a substrate needs.
void require_substrate(const std::string& shape, const ContourShape& p) {
  require_positive(shape, "w", p.w);
  require_positive(shape, "h", p.h);
  require_thickness(shape, p.t);
  require_at_least_one(shape, "eps_r", p.eps_r);
}

[[noreturn]] void unknown_shape(const std::string& shape) {
  std::string names;
  for (const std::string& s : contour_shapes()) names += (names.empty() ? "" : ", ") + s;
  throw InvalidInput("unknown contour shape '" + shape + "' (shapes: " + names + ")");
}

// Arithmetic-geometric mean; K(k) = pi / (2 agm(1, sqrt(1 - k^2))).
double agm(double a, double b) {
  for (int i = 0; i < 64 && std::abs(a - b) > 1e-15 * a; ++i) {  // quadratic: a few steps
    const double m = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = m;
  }
  return 0.5 * (a + b);
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

double coax_sleeve_capacitance(double a, double r1, double b, double eps1, double eps2) {
  const std::string f = "coax_sleeve_capacitance";
  require_positive(f, "a", a);
  require(std::isfinite(r1) && r1 > a, f, "r1 = " + num(r1) + " m: expected > a");
  require(std::isfinite(b) && b > r1, f, "b = " + num(b) + " m: expected > r1");
  require_positive(f, "eps1", eps1);
  require_positive(f, "eps2", eps2);
  return 2 * kPi * kEpsilon0 / (std::log(r1 / a) / eps1 + std::log(b / r1) / eps2);
}

double wire_over_ground_capacitance(double a, double h, double eps_r) {
  const std::string f = "wire_over_ground_capacitance";
  require_positive(f, "a", a);
  require(std::isfinite(h) && h > a, f,
          "h = " + num(h) + " m: expected > a (the wire must not touch the plane)");
  require_positive(f, "eps_r", eps_r);
  return 2 * kPi * eps_r * kEpsilon0 / std::acosh(h / a);
}

double stripline_impedance(double w, double b, double eps_r) {
  const std::string f = "stripline_impedance";
  require_positive(f, "w", w);
  require_positive(f, "b", b);
  require_positive(f, "eps_r", eps_r);
  // K(k) = pi / (2 agm(1, k')), K(k') = pi / (2 agm(1, k)): with k = sech(x), k' = tanh(x)
  // each complement is exact, so wide strips (k' -> 1) keep their digits. Past x = 30
  // (k < 2e-13; sech underflows past 710) K(k') = ln(4 / k) = x + ln 2 to O(k^2).
  const double x = kPi * w / (2 * b);
  const double k = 1 / std::cosh(x), kp = std::tanh(x);
  const double k_of_k = kPi / (2 * agm(1, kp));
  const double k_of_kp = x > 30 ? x + std::log(2.0) : kPi / (2 * agm(1, k));
  return kEta0 / (4 * std::sqrt(eps_r)) * k_of_k / k_of_kp;
}

MicrostripFormula hammerstad_jensen(double w, double h, double eps_r) {
  const std::string f = "hammerstad_jensen";
  require_positive(f, "w", w);
  require_positive(f, "h", h);
  require_at_least_one(f, "eps_r", eps_r);
  const double u = w / h;
  const double fu = 6 + (2 * kPi - 6) * std::exp(-std::pow(30.666 / u, 0.7528));
  const double z_air = kEta0 / (2 * kPi) * std::log(fu / u + std::sqrt(1 + 4 / (u * u)));
  const double u4 = u * u * u * u;
  const double a = 1 + std::log((u4 + (u / 52) * (u / 52)) / (u4 + 0.432)) / 49 +
                   std::log(1 + std::pow(u / 18.1, 3)) / 18.7;
  const double b = 0.564 * std::pow((eps_r - 0.9) / (eps_r + 3), 0.053);
  MicrostripFormula out;
  out.eps_eff = (eps_r + 1) / 2 + (eps_r - 1) / 2 * std::pow(1 + 10 / u, -a * b);
  out.z0 = z_air / std::sqrt(out.eps_eff);
  return out;
}

namespace {

// One builder per shape: checks the parameters it uses, adds the contours.
using Builder = void (*)(const std::string& shape, const ContourShape& p, Contours* c);

void require_vertices(const std::string& shape, const ContourShape& p) {
  require(p.vertices >= 3 && p.vertices <= 100000000, shape,
          "vertices = " + std::to_string(p.vertices) + ": expected 3..1e8 per circle");
  require_positive(shape, "a", p.a);
}

void make_coax(const std::string& shape, const ContourShape& p, Contours* c) {
  require_vertices(shape, p);
  require_positive(shape, "b", p.b);
  require(p.a < p.b, shape, "the inner radius a must be less than the outer radius b");
  const double e = shape == "coax" ? 0.0 : p.e;
  require(std::isfinite(e) && e >= 0 && e < p.b - p.a, shape,
          "offset e = " + num(e) + " m: expected 0 <= e < b - a");
  add_circle(c, 0, 0, p.b, p.vertices, 0);  // the shield: conductor 0
  add_circle(c, e, 0, p.a, p.vertices, 1);
}

void make_two_wire(const std::string& shape, const ContourShape& p, Contours* c) {
  require_vertices(shape, p);
  require(std::isfinite(p.d) && p.d > 2 * p.a, shape,
          "centre distance d = " + num(p.d) + " m: expected d > 2a");
  add_circle(c, -0.5 * p.d, 0, p.a, p.vertices, 0);
  add_circle(c, 0.5 * p.d, 0, p.a, p.vertices, 1);
}

void make_strip(const std::string& shape, const ContourShape& p, Contours* c) {
  require_positive(shape, "w", p.w);
  add_strip(c, -0.5 * p.w, 0.5 * p.w, 0, 0);
}

void make_microstrip(const std::string& shape, const ContourShape& p, Contours* c) {
  require_positive(shape, "w", p.w);
  require_positive(shape, "h", p.h);
  require_positive(shape, "s", p.s);
  require_positive(shape, "ground", p.ground);
  add_strip(c, -0.5 * p.ground, 0.5 * p.ground, 0, 0);
  add_strip(c, -0.5 * p.s - p.w, -0.5 * p.s, p.h, 1);
  add_strip(c, 0.5 * p.s, 0.5 * p.s + p.w, p.h, 2);
}

void make_rectangle(const std::string& shape, const ContourShape& p, Contours* c) {
  require_positive(shape, "w", p.w);
  require_positive(shape, "h", p.h);
  const double x = 0.5 * p.w, y = 0.5 * p.h;
  c->add({-x, x, x, -x}, {-y, -y, y, y}, true, 0);
}

void make_microstrip_line(const std::string& shape, const ContourShape& p, Contours* c) {
  require_substrate(shape, p);
  const double half = substrate_half_width(shape, p, p.w);
  add_trace(c, -0.5 * p.w, 0.5 * p.w, p.h, p.t, 0);
  add_substrate(c, half, p.h, p.eps_r);
}

void make_coupled_microstrip(const std::string& shape, const ContourShape& p, Contours* c) {
  require_substrate(shape, p);
  require_positive(shape, "s", p.s);
  const double half = substrate_half_width(shape, p, 2 * p.w + p.s);
  add_trace(c, -0.5 * p.s - p.w, -0.5 * p.s, p.h, p.t, 0);
  add_trace(c, 0.5 * p.s, 0.5 * p.s + p.w, p.h, p.t, 1);
  add_substrate(c, half, p.h, p.eps_r);
}

void make_cpwg(const std::string& shape, const ContourShape& p, Contours* c) {
  require_substrate(shape, p);
  require_positive(shape, "s", p.s);
  const double half = substrate_half_width(shape, p, p.w + 2 * p.s);
  // The coplanar grounds reach the substrate's edges (its corner vertices, the same doubles).
  add_trace(c, -half, -0.5 * p.w - p.s, p.h, p.t, 0);
  add_trace(c, 0.5 * p.w + p.s, half, p.h, p.t, 0);
  add_trace(c, -0.5 * p.w, 0.5 * p.w, p.h, p.t, 1);
  add_substrate(c, half, p.h, p.eps_r);
}

void make_coated_wire(const std::string& shape, const ContourShape& p, Contours* c) {
  require_positive(shape, "a", p.a);
  require(std::isfinite(p.r1) && p.r1 > p.a, shape,
          "r1 = " + num(p.r1) + " m: expected > a (the coating's outer radius)");
  require(std::isfinite(p.h) && p.h > p.r1, shape,
          "h = " + num(p.h) + " m: expected > r1 (the coating must not touch the plane)");
  require_at_least_one(shape, "eps_r", p.eps_r);
  add_arc_circle(c, 0, p.h, p.a, 0, 0);
  add_arc_circle(c, 0, p.h, p.r1, kDielectric, p.eps_r);
}

void make_stripline(const std::string& shape, const ContourShape& p, Contours* c) {
  require_positive(shape, "w", p.w);
  require_positive(shape, "b", p.b);
  require_thickness(shape, p.t);
  require_at_least_one(shape, "eps_r", p.eps_r);
  require(p.t < p.b, shape, "t = " + num(p.t) + " m: expected < b (the trace inside the box)");
  require(std::isfinite(p.ground) && p.ground >= 0, shape,
          "ground = " + num(p.ground) + " m: expected >= 0 (0: 10 b)");
  const double half = p.ground > 0 ? 0.5 * p.ground : 5 * p.b;
  require(half > 0.5 * p.w, shape,
          "ground = " + num(p.ground) +
              " m: the box must be wider than the trace (w = " + num(p.w) + " m)");
  std::vector<double> x, y;
  rectangle(-half, half, -0.5 * p.b, 0.5 * p.b, &x, &y);
  c->add(x, y, true, 0);
  if (p.t == 0) {
    add_strip(c, -0.5 * p.w, 0.5 * p.w, 0, 1);
  } else {
    rectangle(-0.5 * p.w, 0.5 * p.w, -0.5 * p.t, 0.5 * p.t, &x, &y);
    c->add(x, y, true, 1);
  }
}

void make_coax_sleeve(const std::string& shape, const ContourShape& p, Contours* c) {
  require_positive(shape, "a", p.a);
  require(std::isfinite(p.b) && p.b > p.a, shape,
          "b = " + num(p.b) + " m: expected > a (the shield around the wire)");
  require(std::isfinite(p.r1) && p.r1 > p.a && p.r1 < p.b, shape,
          "r1 = " + num(p.r1) + " m: expected between a = " + num(p.a) + " m and b = " + num(p.b) +
              " m (the sleeve's outer radius)");
  require_at_least_one(shape, "eps_r", p.eps_r);
  add_arc_circle(c, 0, 0, p.b, 0, 0);
  add_arc_circle(c, 0, 0, p.a, 1, 0);
  add_arc_circle(c, 0, 0, p.r1, kDielectric, p.eps_r);
}

// The shapes, in the order they are listed: name, over a ground plane, builder.
struct ShapeRow {
  const char* name;
  bool ground_plane;
  Builder make;
};
constexpr ShapeRow kShapes[] = {
    {"coax", false, make_coax},
    {"eccentric-coax", false, make_coax},
    {"two-wire", false, make_two_wire},
    {"strip", false, make_strip},
    {"microstrip", false, make_microstrip},
    {"rectangle", false, make_rectangle},
    {"microstrip-line", true, make_microstrip_line},
    {"coupled-microstrip", true, make_coupled_microstrip},
    {"cpwg", true, make_cpwg},
    {"coated-wire", true, make_coated_wire},
    {"stripline", false, make_stripline},
    {"coax-sleeve", false, make_coax_sleeve},
};

const ShapeRow& find_shape(const std::string& shape) {
  for (const ShapeRow& r : kShapes)
    if (shape == r.name) return r;
  unknown_shape(shape);
}

}  // namespace

std::vector<std::string> contour_shapes() {
  std::vector<std::string> names;
  for (const ShapeRow& r : kShapes) names.emplace_back(r.name);
  return names;
}

bool contour_shape_has_ground_plane(const std::string& shape) {
  return find_shape(shape).ground_plane;
}

Contours generate_contours(const std::string& shape, const ContourShape& p) {
  Contours c;
  find_shape(shape).make(shape, p, &c);
  return c;
}

}  // namespace mlfma2d
