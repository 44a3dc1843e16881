// Uses the installed package: solve once, check against direct summation.
#include <cmath>
#include <cstdio>
#include <mlfma2d/mlfma2d.hpp>

#include "points.hpp"

int main() {
  const Points p = kronecker_points(3000, [](double i) { return std::sin(i); });
  mlfma2d::Options opt;
  opt.eps = 1e-8;
  mlfma2d::Solver solver(p.x, p.y, opt);
  const double err = error_against_direct_sum(p, solver.evaluate(p.q));
  std::printf("mlfma2d %s: N = %zu, L = %d, relative L2 error %.2e\n", mlfma2d::version(),
              solver.stats().n_sources, solver.stats().levels, err);
  return err <= 1e-8 ? 0 : 1;
}
