#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include "farfield/expansions.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"
#include "solver/points.hpp"
using namespace mlfma2d;
int main(int argc, char** argv) {
  std::size_t n = argc > 1 ? std::atol(argv[1]) : 1000000;
  int ct = argc > 2 ? std::atoi(argv[2]) : 32;
  int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  int nd = argc > 4 ? std::atoi(argv[4]) : 1;
  int reps = argc > 5 ? std::atoi(argv[5]) : 10;
  int p = 30;
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = u(g), y[i] = u(g);
  Tree tree = build_tree(x, y, {}, {}, ct, 0, nullptr, threads, TreeKind::Adaptive);
  Plan plan = build_plan(tree, threads);
  Operators ops(p);
  Expansions e;
  e.reset(tree, p, nd, threads);
  for (int l = 3; l <= tree.levels; ++l) {
    auto& M = e.multipole[l];
    for (Eigen::Index i = 0; i < M.size(); ++i) M.data()[i] = Complex(u(g) - 0.5, u(g) - 0.5);
  }
  std::vector<double> ts;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    M2L(tree, plan, ops, 3, tree.levels, &e, threads);
    ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ts.begin(), ts.end());
  double cs = 0;
  for (int l = 3; l <= tree.levels; ++l) {
    auto& L = e.local[l];
    for (Eigen::Index i = 0; i < L.size(); ++i) cs += std::abs(L.data()[i]);
  }
  double fl = 0;
  for (const M2LLevel& lv : plan.m2l)
    for (auto o : lv.offset) { double t = m2l_terms(p, o); fl += 4 * t * t * nd; }
  std::printf("product GFLOP %.3f -> %.1f GFLOP/s at min\n", fl * 1e-9, fl * 1e-9 / ts[0]);
  std::printf("levels %d pairs %lld nd %d: M2L min %.2f ms median %.2f ms checksum %.15e\n", tree.levels,
              (long long)plan.m2l_pairs, nd, ts[0] * 1e3, ts[ts.size() / 2] * 1e3, cs);
}
