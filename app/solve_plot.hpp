#pragma once
/// \file solve_plot.hpp
/// `mlfma2d solve --plot FILE.png`: the cross-section (conductors, dielectric interfaces, the
/// ground plane) over |E| as a colour map (log scale) with the equipotentials, drawn by gnuplot.
#include <cstddef>
#include <string>
#include <vector>

#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d::app {

/// \brief Probe points on a regular grid: row after row (y rising), x rising along a row.
struct ProbeGrid {
  std::size_t nx = 0, ny = 0;
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;  ///< the box (m), grid points on its edges
  std::vector<double> x, y;               ///< nx * ny points
};

/// The grid over the panels' box plus a margin of 15% of its larger side on every side (not
/// below a ground plane: the box starts at the plane), about `points` points with square cells.
ProbeGrid probe_grid(const ElectrostaticSolution& solution, std::size_t points = 60000);

/// Draws `solution` with the potential and field at the grid's points (field NaN at a panel
/// end: left out) into `png`, atomically. Throws InvalidInput when gnuplot is missing,
/// RuntimeFailure with gnuplot's message when it fails.
void plot_solution(const std::string& png, const ElectrostaticSolution& solution,
                   const ProbeGrid& grid, const FieldAtTargets& field, const std::string& title);

}  // namespace mlfma2d::app
