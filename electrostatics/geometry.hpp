#pragma once
// Contours to panels (internal). The solve works in normalised coordinates x' = (x - centre) /
// scale (the contours' bounding box fits in [-1/2, 1/2]^2), so that the operator's entries are
// O(1) whatever the units; Frame maps back.
#include <array>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "electrostatics/panel_integrals.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d::es {

/// A number as "%g" prints it, for messages.
inline std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

/// \brief x_physical = centre + scale * x_normalised.
struct Frame {
  double cx = 0, cy = 0, scale = 1;
};

/// \brief A contour segment: straight, or a circular arc (bulge != 0) from a to b.
/// Arc: centre (cx, cy), radius r, start angle a0, signed sweep (> 0 counter-clockwise).
struct Curve {
  double ax, ay, bx, by;
  double bulge = 0;
  double cx = 0, cy = 0, r = 0, a0 = 0, sweep = 0;
  Curve(double ax_, double ay_, double bx_, double by_, double bulge_ = 0);
  bool arc() const { return bulge != 0; }
  double length() const;
  /// Point at parameter t in [0, 1] (by arc length).
  void at(double t, double* x, double* y) const;
  /// Unit tangent (direction of travel) at t.
  void tangent(double t, double* tx, double* ty) const;
  /// Distance from (x, y) to the curve.
  double distance(double x, double y) const;
  /// Bounding box.
  void box(double* xmin, double* xmax, double* ymin, double* ymax) const;
  /// The part from t0 to t1 (same arc).
  Curve part(double t0, double t1) const;
};

/// \brief A dielectric region: its boundary, permittivity and area (the innermost of those
/// containing a point is the smallest).
struct Region {
  std::vector<Curve> curves;
  double eps = 1, area = 0;
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;

  /// Crossing number of the ray from (x, y) toward +x; arcs cut into pieces monotone in y.
  bool contains(double x, double y) const;
};

/// Contour k's segments as curves, normalised by the frame f.
std::vector<Curve> contour_curves(const Contours& c, std::size_t k, const Frame& f);
/// The region bounded by a closed contour's curves, with permittivity eps.
Region make_region(std::vector<Curve> curves, double eps);

/// \brief The panels in normalised coordinates, contour after contour, in contour order.
struct PanelSet {
  Frame frame;
  std::vector<Segment> seg;
  std::vector<double> xm, ym;           ///< centres (collocation points)
  std::vector<double> h;                ///< lengths
  std::vector<double> nx, ny;           ///< unit normal, to the left of the direction of travel
  std::vector<int> contour, conductor;  ///< conductor: kDielectric for interface panels
  /// Relative permittivity on the left (the normal's side) and on the right of each panel.
  std::vector<double> eps_left, eps_right;
  std::vector<std::size_t> contour_start;  ///< panels of contour k: [contour_start[k], [k+1])
  std::vector<bool> closed;  ///< per contour: its panels form a loop (no piece dropped)
  int conductors = 0;
  bool graded = false;      ///< some segment has a graded end (an open end or a corner)
  double perimeter = 0;     ///< sum of h
  bool interfaces = false;  ///< some panel is a dielectric interface
  bool two_sided = false;   ///< some conductor panel has different eps on its two sides
  /// Circle of each panel on an arc (index into circles: centre x, y, radius), else -1.
  std::vector<int> circle;
  std::vector<std::array<double, 3>> circles;
  bool mirror = false;    ///< a ground plane: every panel has a negated image
  double mirror_y = 0;    ///< the plane, normalised
  double background = 1;  ///< eps_r outside every region
  std::size_t size() const { return h.size(); }
  bool is_interface(std::size_t j) const { return conductor[j] == kDielectric; }
};

/// The largest panel count discretise() makes.
constexpr std::size_t kMaxPanels = 100000000;

/// Panels for validated contours: options.panels, options.panel_size or the default count
/// (feature- and proximity-based), each piece's count times 2^level, graded toward open ends,
/// corners and junctions (docs/solve.md); dielectric region boundaries cut where they touch
/// other contours, their pieces along conductors, the ground plane or another region's boundary
/// dropped, and the permittivity of both sides of every panel found. `vacuum`: conductors only,
/// every eps_r = 1. Throws InvalidInput for bad counts.
PanelSet discretise(const Contours& contours, const ElectrostaticOptions& options, int level = 0,
                    bool vacuum = false);

/// The panels in metres.
Panels to_metres(const PanelSet& panels);

}  // namespace mlfma2d::es
