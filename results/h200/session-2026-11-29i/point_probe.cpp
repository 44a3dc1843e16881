// The far field's point operators alone (an experiment, not the library's code): P2M of charges
// and L2P of the potential and field (nd densities) on a tree of N uniform points at leaf capacity
// CT, each run RUNS times; the minimum time and GFLOP/s with the library's count (far_field_flops:
// P2M 6 + 4 nd flops a source and term, L2P 8 nd a target, term and pass).
//   point_probe N CT THREADS RUNS [ND]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "farfield/expansions.hpp"
#include "solver/points.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"
using namespace mlfma2d;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::atol(argv[1]) : 1000000;
  const int ct = argc > 2 ? std::atoi(argv[2]) : 32;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int runs = argc > 4 ? std::atoi(argv[4]) : 10;
  const int nd = argc > 5 ? std::atoi(argv[5]) : 1;
  const int p = 30;
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> x(n), y(n), q(n * nd);
  for (std::size_t i = 0; i < n; ++i) x[i] = u(g), y[i] = u(g);
  for (double& v : q) v = u(g) - 0.5;
  Tree tree = build_tree(x, y, {}, {}, ct, 0, nullptr, threads, TreeKind::Adaptive);
  Operators ops(p);
  Expansions e;
  e.reset(tree, p, nd, threads);
  std::vector<double> phi(n * nd), ex(n * nd), ey(n * nd);
  const FarSources s{q.data(), nullptr, nullptr};
  const FarOutputs o{phi.data(), ex.data(), ey.data(), nullptr, nullptr};
  double sources = 0;
  for (const BoxRef& r : tree.leaves)
    if (r.level >= 3) sources += double(tree.at(r).sources(r.box));
  const double p2m_flops = p * (6.0 + 4.0 * nd) * sources, l2p_flops = 8.0 * p * nd * 2 * sources;
  auto best = [&](auto&& f) {
    double b = 1e30;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      b = std::min(b, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return b;
  };
  // Locals with content: every level's locals random.
  for (int l = 3; l <= tree.levels; ++l) {
    auto& L = e.local[l];
    for (Eigen::Index c = 0; c < L.cols(); ++c)
      for (int k = 0; k <= p; ++k) L(k, c) = Complex(u(g) - 0.5, u(g) - 0.5);
  }
  const double t_p2m = best([&] { P2M(tree, ops, s, &e, threads); });
  const double t_l2p = best([&] { L2P(tree, ops, e, o, threads); });
  double check = 0;
  for (double v : phi) check += v;
  for (double v : ex) check += v;
  std::printf("N %zu CT %d threads %d nd %d leaves %zu: P2M %.3f ms %.1f GFLOP/s  L2P %.3f ms %.1f GFLOP/s  (check %.6e, a_1 %.6e)\n",
              n, ct, threads, nd, tree.leaves.size(), t_p2m * 1e3, p2m_flops / t_p2m * 1e-9,
              t_l2p * 1e3, l2p_flops / t_l2p * 1e-9, check,
              std::abs(e.multipole[tree.levels](1, 0)));
  return 0;
}
