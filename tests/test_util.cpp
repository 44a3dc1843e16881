#include "tests/test_util.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace mlfma2d::testing {

PointSet make_points(const std::string& shape, std::size_t n, std::uint64_t seed) {
  return generate_points(shape, n, seed);
}

void reference(const std::vector<double>& x, const std::vector<double>& y,
               const std::vector<double>& q, const std::vector<double>& tx,
               const std::vector<double>& ty, std::vector<double>* phi, std::vector<double>* fx,
               std::vector<double>* fy) {
  direct_sum(x, y, q, tx, ty, {}, phi, fx, fy);
}

double field_rel_l2(const std::vector<double>& fx, const std::vector<double>& fy,
                    const std::vector<double>& rx, const std::vector<double>& ry) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < fx.size(); ++i) {
    num += (fx[i] - rx[i]) * (fx[i] - rx[i]) + (fy[i] - ry[i]) * (fy[i] - ry[i]);
    den += rx[i] * rx[i] + ry[i] * ry[i];
  }
  return std::sqrt(num / den);
}

std::string temp_dir() {
  // Never destroyed: the exit handler below runs after the destructors of statics constructed
  // later than its registration, this one included (a use after free, found by ASan).
  static const std::string& dir = *new std::string([] {
    auto p = std::filesystem::temp_directory_path() /
             ("mlfma2d-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    std::atexit([] {  // leave nothing behind in /tmp
      std::error_code ec;
      std::filesystem::remove_all(temp_dir(), ec);
    });
    return p.string();
  }());
  return dir;
}

}  // namespace mlfma2d::testing
