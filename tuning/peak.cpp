// The machine's FMA peak (tuning.hpp), measured by the wide kernels' probe (kernel/wide.hpp).
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "farfield/expansions.hpp"
#include "kernel/wide.hpp"
#include "runtime/timer.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::tuning {

int widest_vector_bits() {
  return wide_kernels_of(512) ? 512 : 256;
}

int stored_expansion_terms(int terms) {
  return expansion_rows(terms);
}

double fma_peak_gflops(int bits, int threads) {
  const WideKernels* k = wide_kernels_of(bits);
  if (!k) return 0;
  // About 0.1 s a run: 2e7 rounds of 12 (256-bit) or 24 (512-bit) chains.
  const long iterations = 20000000L / (k->bits >= 512 ? 2 : 1);
  double best = 0;
  for (int run = 0; run < 3; ++run) {
    double flops = 0, sink = 0;
    const double t0 = now_seconds();
#pragma omp parallel num_threads(threads) reduction(+ : flops, sink)
    {
      double f = 0;
      sink += k->fma_probe(iterations, &f);
      flops += f;
    }
    const double t = now_seconds() - t0;
    if (sink == 42.0) std::fputs("", stdout);  // the sums are used
    best = std::max(best, flops / t * 1e-9);
  }
  return best;
}

double translation_gflops(int bits, int threads) {
  const WideKernels* k = wide_kernels_of(bits);
  if (!k) return 0;
  constexpr int n = 31, rows = wide_rows(n), cols = 43 * kWideItems;
  constexpr long calls = 4000;  // about 0.1 s on one core of 30 GFLOP/s
  double best = 0;
  for (int run = 0; run < 3; ++run) {
    double flops = 0, sink = 0;
    const double t0 = now_seconds();
#pragma omp parallel num_threads(threads) reduction(+ : flops, sink)
    {
      // Laid out as the far field lays its data out: on 64 bytes, columns of expansion_rows.
      constexpr std::size_t stride = 2 * expansion_rows(n - 1);
      AlignedDoubles R(std::size_t(rows) * n), S(stride * cols), O(stride * cols, 0.0), re(2 * n),
          im(2 * n), are(rows, 0.5), aim(rows, 0.25);
      for (std::size_t i = 0; i < R.size(); ++i) R[i] = 1.0 / double(i + 1);
      for (std::size_t i = 0; i < S.size(); ++i) S[i] = 1e-3 * double(i % 97);
      for (int i = 0; i < 2 * n; ++i) re[i] = 0.5, im[i] = i % 2 ? 0.25 : -0.25;
      std::vector<WideColumn> c(cols);
      for (int j = 0; j < cols; ++j)
        c[j] = {S.data() + stride * j, re.data(), im.data(), are.data(), aim.data(),
                O.data() + stride * j, 0.0,       0.0};
      for (long r = 0; r < calls; ++r) k->translate(n, rows, rows, R.data(), cols, c.data());
      sink += O[0];
      // As the far field counts a translation of n terms (docs/math.md 3.4): the product 4 n^2,
      // the scalings before and after it 6 n and 8 n.
      flops += (4.0 * n * n + 14.0 * n) * cols * double(calls);
    }
    const double t = now_seconds() - t0;
    if (sink == 42.0) std::fputs("", stdout);  // the products are used
    best = std::max(best, flops / t * 1e-9);
  }
  return best;
}

}  // namespace mlfma2d::tuning
