// The two permutations of an evaluation (an experiment, not the library's code): the strengths
// into tree order (gather: out[k] = in[to[k]]) and the outputs back, added to the near field's
// (scatter with plus: out[to[k]] = plus[to[k]] + in[k]), on a random permutation of N elements,
// by the library's BlockedPermutation (two passes through blocks within L2) and by one direct
// loop (a random access per element); the minimum of RUNS.
//   perm_probe N THREADS RUNS
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "runtime/permutation.hpp"
using namespace mlfma2d;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::atol(argv[1]) : 1000000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  std::vector<std::int64_t> to(n);
  std::iota(to.begin(), to.end(), 0);
  std::mt19937_64 g(1);
  std::shuffle(to.begin(), to.end(), g);
  std::vector<double> in(n), out(n), plus(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = double(i), plus[i] = 0.5 * double(i);
  BlockedPermutation perm(to.data(), n, threads);
  auto best = [&](auto&& f) {
    double b = 1e30;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      b = std::min(b, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return b * 1e3;
  };
  const double* i = in.data();
  const double* pl = plus.data();
  double* o = out.data();
  const std::int64_t* t = to.data();
  const double bg = best([&] { perm.gather(i, o, threads); });
  const double dg = best([&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t k = 0; k < n; ++k) o[k] = i[t[k]];
  });
  double check = 0;
  for (std::size_t k = 0; k < n; k += 997) check += o[k] - double(t[k]);
  const double bs = best([&] { perm.scatter(i, o, pl, threads); });
  const double ds = best([&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t k = 0; k < n; ++k) o[t[k]] = pl[t[k]] + i[k];
  });
  for (std::size_t k = 0; k < n; k += 997) check += o[t[k]] - (pl[t[k]] + i[k]);
  std::printf("N %zu threads %d: gather blocked %.3f ms direct %.3f ms; scatter+plus blocked %.3f ms direct %.3f ms (check %g)\n",
              n, threads, bg, dg, bs, ds, check);
  return 0;
}
