#pragma once
// Contours to panels (internal). The solve works in normalised coordinates x' = (x - centre) /
// scale (the contours' bounding box fits in [-1/2, 1/2]^2), so that the operator's entries are
// O(1) whatever the units; Frame maps back.
#include <cstddef>
#include <vector>

#include "electrostatics/panel_integrals.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d::es {

/// \brief x_physical = centre + scale * x_normalised.
struct Frame {
  double cx = 0, cy = 0, scale = 1;
};

/// \brief The panels in normalised coordinates, contour after contour, in contour order.
struct PanelSet {
  Frame frame;
  std::vector<Segment> seg;
  std::vector<double> xm, ym;  ///< centres (collocation points)
  std::vector<double> h;       ///< lengths
  std::vector<int> contour, conductor;
  std::vector<std::size_t> contour_start;  ///< panels of contour k: [contour_start[k], [k+1])
  std::vector<bool> closed;                ///< per contour
  int conductors = 0;
  bool graded = false;   ///< some segment has a graded end (an open end or a corner)
  double perimeter = 0;  ///< sum of h
  std::size_t size() const { return h.size(); }
};

/// The largest panel count discretise() makes.
constexpr std::size_t kMaxPanels = 100000000;

/// Panels for validated contours: options.panels, options.panel_size or the default count,
/// graded toward open ends and corners (docs/solve.md). Throws InvalidInput for bad counts.
PanelSet discretise(const Contours& contours, const ElectrostaticOptions& options);

/// The panels in metres.
Panels to_metres(const PanelSet& panels);

}  // namespace mlfma2d::es
