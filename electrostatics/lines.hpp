#pragma once
// Line parameters of a multiconductor TEM line from its Maxwell capacitance matrices with the
// dielectrics (C) and in vacuum (C0), per unit length (docs/math.md section 8.4; docs/solve.md,
// "Line parameters").
#include <vector>

#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d::es {

/// mu0 eps0 = 1 / c^2 (s^2/m^2), c = 299792458 m/s exactly.
constexpr double kLightSpeed = 299792458.0;

/// L = mu0 eps0 C0^-1; mutual form; one signal conductor: Z0 = 1 / (c sqrt(C C0)),
/// eps_eff = C / C0, v = c / sqrt(eps_eff); modes from C v = eps_eff C0 v.
LineParameters line_parameters(const std::vector<std::vector<double>>& c,
                               const std::vector<std::vector<double>>& c0);

}  // namespace mlfma2d::es
