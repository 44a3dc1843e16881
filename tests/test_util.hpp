#pragma once
// Helpers shared by the tests: point sets, direct reference sums, error norms.
#include <cstdint>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::testing {

/// A point set of `shape` (see generate_points) with n points.
PointSet make_points(const std::string& shape, std::size_t n, std::uint64_t seed = 7);

/// Direct-sum potential (and field if fx, fy non-null) of sources (x, y, q) at all targets.
void reference(const std::vector<double>& x, const std::vector<double>& y,
               const std::vector<double>& q, const std::vector<double>& tx,
               const std::vector<double>& ty, std::vector<double>* phi, std::vector<double>* fx,
               std::vector<double>* fy);

/// Relative L2 error of a 2-vector field (fx, fy) against (rx, ry).
double field_rel_l2(const std::vector<double>& fx, const std::vector<double>& fy,
                    const std::vector<double>& rx, const std::vector<double>& ry);

/// Directory for temporary test files (created; unique per process).
std::string temp_dir();

}  // namespace mlfma2d::testing
