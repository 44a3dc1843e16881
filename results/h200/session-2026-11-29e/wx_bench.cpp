// P2L and M2P alone on a tree of points from a binary file (x then y): wx_bench FILE CT THREADS ND RUNS P2P_BELOW
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
  const char* file = argv[1];
  int ct = argc > 2 ? std::atoi(argv[2]) : 512;
  int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  int nd = argc > 4 ? std::atoi(argv[4]) : 1;
  int reps = argc > 5 ? std::atoi(argv[5]) : 5;
  long below = argc > 6 ? std::atol(argv[6]) : 15;
  int field = argc > 7 ? std::atoi(argv[7]) : 0;
  int p = 30;
  FILE* f = std::fopen(file, "rb");
  std::fseek(f, 0, SEEK_END);
  std::size_t n = std::ftell(f) / 16;
  std::fseek(f, 0, SEEK_SET);
  std::vector<double> x(n), y(n);
  if (std::fread(x.data(), 8, n, f) != n || std::fread(y.data(), 8, n, f) != n) return 1;
  std::fclose(f);
  Tree tree = build_tree(x, y, {}, {}, ct, 0, nullptr, threads, TreeKind::Adaptive);
  PlanOptions po;
  po.p2p_below = below;
  Plan plan = build_plan(tree, threads, po);
  Operators ops(p);
  Expansions e;
  e.reset(tree, p, nd, threads);
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(0, 1);
  for (int l = 3; l <= tree.levels; ++l) {
    auto& M = e.multipole[l];
    for (Eigen::Index i = 0; i < M.size(); ++i) M.data()[i] = Complex(u(g) - 0.5, u(g) - 0.5);
    auto& M2 = e.local[l];
    for (Eigen::Index i = 0; i < M2.size(); ++i) M2.data()[i] = 0;
  }
  for (int l = 3; l <= tree.levels; ++l) {
    auto& M = e.multipole[l];
    for (Eigen::Index c = 0; c < M.cols(); ++c) M(0, c) = Complex(M(0, c).real(), 0);
  }
  std::vector<double> q(n * nd), phi(n * nd, 0), ex(field ? n * nd : 0), ey(field ? n * nd : 0);
  for (auto& v : q) v = u(g) - 0.5;
  FarSources s{q.data(), nullptr, nullptr};
  FarOutputs o;
  o.phi = phi.data();
  if (field) o.ex = ex.data(), o.ey = ey.data();
  std::vector<double> tp, tm;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    P2L(tree, plan, ops, s, &e, threads);
    auto t1 = std::chrono::steady_clock::now();
    M2P(tree, plan, ops, e, o, threads);
    auto t2 = std::chrono::steady_clock::now();
    tp.push_back(std::chrono::duration<double>(t1 - t0).count());
    tm.push_back(std::chrono::duration<double>(t2 - t1).count());
  }
  std::sort(tp.begin(), tp.end());
  std::sort(tm.begin(), tm.end());
  double cs = 0, cl = 0;
  for (double v : phi) cs += std::abs(v);
  for (double v : ex) cs += std::abs(v);
  for (int l = 3; l <= tree.levels; ++l) {
    auto& L = e.local[l];
    for (Eigen::Index i = 0; i < L.size(); ++i) cl += std::abs(L.data()[i]);
  }
  std::printf("CT %d levels %d nd %d below %ld: p2l_terms %llu m2p_terms %llu | P2L min %.2f med %.2f ms | M2P min %.2f med %.2f ms | checks %.15e %.15e\n",
              ct, tree.levels, nd, below, (unsigned long long)plan.p2l_terms, (unsigned long long)plan.m2p_terms,
              tp[0] * 1e3, tp[tp.size() / 2] * 1e3, tm[0] * 1e3, tm[tm.size() / 2] * 1e3, cs, cl);
}
