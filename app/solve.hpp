#pragma once
/// \file solve.hpp
/// `mlfma2d solve`: charges, fields and the capacitance matrix of 2D conductors held at given
/// potentials (include/mlfma2d/electrostatics.hpp, docs/solve.md). Parsing touches no file and
/// runs nothing.
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d::app {

/// \brief `mlfma2d solve ...`
struct SolveArgs {
  std::string input;    ///< contour file (HDF5), required
  std::string targets;  ///< points for potential and field, empty when none
  std::string output;   ///< solution file (HDF5), empty when none
  std::string plot;     ///< --plot: the picture (PNG), empty when none
  std::string rlgc;     ///< --rlgc: the HSPICE W-element RLGC file, empty when none
  ElectrostaticOptions options;
  bool potentials_given = false;    ///< --potentials (else the file's, else the default)
  bool eps_r_given = false;         ///< --eps-r (else the file's attribute, else 1)
  bool ground_plane_given = false;  ///< --ground-plane Y|none (else the file's attribute)
  /// "--panels" or "--panel-size" when given: the mesh, fixed (no --accuracy) or the first of
  /// the refinement (with --accuracy); empty: the default mesh.
  std::string mesh_option;
  bool json = false;  ///< --report json
  bool quiet = false;
};

/// The solve command (its row in command_rows()): the report on stdout (text, or one JSON
/// object), progress on stderr.
CommandRow solve_command();

}  // namespace mlfma2d::app
