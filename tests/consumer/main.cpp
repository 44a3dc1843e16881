// Uses the installed package: solve once, check against direct summation.
#include <cmath>
#include <cstdio>
#include <mlfma2d/mlfma2d.hpp>

int main() {
  std::vector<double> x, y, q;
  for (int i = 0; i < 3000; ++i) {
    x.push_back(std::fmod(i * 0.618033988749895, 1.0));
    y.push_back(std::fmod(i * 0.754877666246693, 1.0));
    q.push_back(std::sin(i));
  }
  mlfma2d::Options opt;
  opt.eps = 1e-8;
  mlfma2d::Solver solver(x, y, opt);
  const mlfma2d::Result r = solver.evaluate(q);
  std::vector<double> ref;
  mlfma2d::direct_sum(x, y, q, x, y, {}, &ref, nullptr, nullptr);
  const double err = mlfma2d::error_norms(r.potential, ref).rel_l2;
  std::printf("mlfma2d %s: N = %zu, L = %d, relative L2 error %.2e\n", mlfma2d::version(),
              solver.stats().n_sources, solver.stats().levels, err);
  return err <= 1e-8 ? 0 : 1;
}
