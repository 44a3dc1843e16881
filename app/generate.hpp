#pragma once
/// \file generate.hpp
/// `mlfma2d generate`: write a PEC point set, or the contour file of a cross-section, of a named
/// shape.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/io.hpp"

namespace mlfma2d::app {

/// \brief `mlfma2d generate ...`
struct GenerateArgs {
  std::string shape;
  std::size_t n = 0;
  std::uint64_t seed = 1;
  std::string output;
  bool quiet = false;
  GeneratedSources sources;  ///< --densities, --sources, --orientations
  ContourShape contour;      ///< the contour shapes: --params, --n vertices per circle
};

/// The generate command (its row in command_rows()): the point set written, "wrote N points ..."
/// on stdout unless quiet.
CommandRow generate_command();

}  // namespace mlfma2d::app
