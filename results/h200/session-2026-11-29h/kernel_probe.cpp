// Where the 512-bit translation kernel's time goes (an experiment, not the library's code): the
// library's WideKernels::translate at 512 bits (kernel/wide_avx512.cpp compiled into this file)
// against a copy of its tile loop with parts left out or reshaped, for each of M2L's kinds of
// truncation at p = 30, on C columns in cache, each thread its own.
//   [ALIGN=1] kernel_probe THREADS COLUMNS RUNS
// Variants: "lib" the library's kernel; "copy" this file's copy (the same work); "no-before"
// without the scaling before (the buffer filled once per thread); "no-after" without the scaling
// after (the sums added to one register); "product" neither; "after-noperm" the scaling after
// without its interleave; "after-nostore" without loading and storing the outputs;
// "before-noswap" the scaling before without its swap; "after-regs-noperm" neither of the
// last-but-one two. GFLOP/s count the product's 4 t^2 a column.
// Build: g++ -O3 -march=x86-64-v4 -mprefer-vector-width=512 -fopenmp -std=c++17 -I. ...
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#define wide_kernels_512 probe_wide_kernels_512
#include "kernel/wide_avx512.cpp"
#undef wide_kernels_512

namespace mlfma2d {
namespace {

// A copy of translate_tiles (the scaling before as a pass into buf, then the product, then the
// scaling after) with parts switchable by the bits of kMode.
enum : int {
  kBefore = 1,        // the scaling before (else buf keeps what the caller put there)
  kAfter = 2,         // the scaling after (else the sums are added to one register)
  kAfterNoPerm = 4,   // the scaling after without the interleave (planes added as they are)
  kAfterNoStore = 8,  // the scaling after into registers (no output loaded or stored)
  kBeforeNoSwap = 16  // the scaling before without its swap
};
template <int RV, int kItems, int kMode>
void tiles(int n, int rows, int ld, const double* R, int cols, const WideColumn* c, double* buf,
           double* sink) {
  constexpr int kRowsT = RV * V::W, kCols = 2 * kItems;
  V::reg keep = V::zero();
  for (int j0 = 0; j0 < cols; j0 += kItems) {
    const int m = std::min(kItems, cols - j0);
    if constexpr ((kMode & kBefore) != 0) {
      for (int j = 0; j < kItems; ++j) {
        double* y = buf + j * kTileStride;
        if (j >= m) continue;
        const double *x = c[j0 + j].in, *re = c[j0 + j].bre, *im = c[j0 + j].bim;
        for (int i = 0; i < 2 * n; i += V::W) {
          const int r = 2 * n - i;
          const V::reg v = r >= V::W ? V::load(x + i) : V::load_first(x + i, r);
          if constexpr ((kMode & kBeforeNoSwap) != 0) {
            const V::reg t = V::fma(V::load(re + i), v, V::mul(V::load(im + i), v));
            if (r >= V::W) V::store(y + i, t); else V::store_first(y + i, t, r);
          } else {
            scale_vector<V>(re + i, im + i, v, y + i, r);
          }
        }
      }
    }
    for (int i0 = 0; i0 + kRowsT <= rows; i0 += kRowsT) {
      V::reg acc[RV][kCols];
      for (int r = 0; r < RV; ++r)
        for (int k = 0; k < kCols; ++k) acc[r][k] = V::zero();
      const double* a = R + i0;
      for (int k = 0; k < n; ++k, a += ld) {
        V::reg col[RV];
        for (int r = 0; r < RV; ++r) col[r] = V::load(a + r * V::W);
        for (int q = 0; q < kCols; ++q) {
          const V::reg b = V::set1(buf[(q / 2) * kTileStride + 2 * k + q % 2]);
          for (int r = 0; r < RV; ++r) acc[r][q] = V::fma(col[r], b, acc[r][q]);
        }
      }
      if constexpr ((kMode & kAfter) != 0) {
        for (int j = 0; j < m; ++j)
          for (int r = 0; r < RV && i0 + r * V::W < n; ++r) {
            const int i = i0 + r * V::W;
            if constexpr ((kMode & (kAfterNoPerm | kAfterNoStore)) == 0) {
              scale_add_pair<V>(acc[r][2 * j], acc[r][2 * j + 1], i, n, c[j0 + j].are,
                                c[j0 + j].aim, c[j0 + j].out);
            } else {
              const V::reg ar = V::load(c[j0 + j].are + i), ai = V::load(c[j0 + j].aim + i);
              const V::reg re = acc[r][2 * j], im = acc[r][2 * j + 1];
              V::reg tr = V::fms(ar, re, V::mul(ai, im)), ti = V::fma(ar, im, V::mul(ai, re));
              if constexpr ((kMode & kAfterNoStore) != 0) {
                if constexpr ((kMode & kAfterNoPerm) == 0) {
                  V::reg lo, hi;
                  V::interleave(tr, ti, &lo, &hi);
                  tr = lo, ti = hi;
                }
                keep = V::add(keep, V::add(tr, ti));
              } else {  // planes added where the interleaved halves would go
                double* out = c[j0 + j].out + 2 * i;
                const int left = 2 * n - 2 * i;
                if (left >= 2 * V::W) {
                  V::store(out, V::add(V::load(out), tr));
                  V::store(out + V::W, V::add(V::load(out + V::W), ti));
                } else {
                  keep = V::add(keep, V::add(tr, ti));
                }
              }
            }
          }
      } else {
        for (int r = 0; r < RV; ++r)
          for (int k = 0; k < kCols; ++k) keep = V::add(keep, acc[r][k]);
      }
    }
  }
  V::store(sink, V::add(V::load(sink), keep));
}

template <int kMode>
void run_tiles(int n, int rows, int ld, const double* R, int cols, const WideColumn* c,
               double* buf, double* sink) {
  if (rows == 32) tiles<4, 3, kMode>(n, rows, ld, R, cols, c, buf, sink);
  else tiles<3, 3, kMode>(n, rows, ld, R, cols, c, buf, sink);
}

}  // namespace
}  // namespace mlfma2d

using namespace mlfma2d;

static const bool kAligned = std::getenv("ALIGN") != nullptr;

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const int cols = argc > 2 ? std::atoi(argv[2]) : 24;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  const int p = 30, ld = 32;
  const int kinds[] = {31, 25, 22, 20, 18};
  const long work = 500000;  // columns a thread translates a run
  std::vector<double> Rstore(std::size_t(ld) * (p + 1) + 16);
  double* Rb = Rstore.data();
  while (reinterpret_cast<std::uintptr_t>(Rb) % 64) ++Rb;
  if (!kAligned) Rb += 4;  // on 32 bytes, as Eigen puts it in a build for x86-64-v3
  struct { double* p; double* data() const { return p; } } R{Rb};
  for (int i = 0; i < ld * (p + 1); ++i) Rb[i] = 1.0 / double(i + 1);
  const char* names[] = {"lib",         "copy",        "no-before",    "no-after",  "product",
                         "after-noperm", "after-nostore", "before-noswap", "after-regs-noperm"};
  const int nv = 9;
  for (int t : kinds) {
    const int rows = wide_rows(t);
    for (int v = 0; v < nv; ++v) {
      std::vector<double> ts;
      for (int run = 0; run < runs; ++run) {
        const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
        {
          // ALIGN=1: every column, factor and buffer on 64 bytes (columns 64 doubles apart);
          // else as the library has them (columns 2 (p + 1) = 62 doubles apart, vectors on 16).
          const std::size_t stride = kAligned ? 64 : 2 * (p + 1), skew = kAligned ? 0 : 2;
          std::vector<double> store(std::size_t(cols) * stride * 2 + 4 * 64 + 4 * 8 + 64);
          double* base = store.data();
          while (reinterpret_cast<std::uintptr_t>(base) % 64) ++base;
          double* in = base + skew;
          double* out = in + std::size_t(cols) * stride + skew;
          double* re = out + std::size_t(cols) * stride + 64 + skew;
          double* im = re + 64 + skew;
          double* are = im + 64 + skew;
          double* aim = are + 64 + skew;
          for (std::size_t i = 0; i < std::size_t(cols) * stride; ++i) in[i] = 0.25, out[i] = 0;
          for (int i = 0; i < 64; ++i) re[i] = 0.5, im[i] = 0.25, are[i] = 0.5, aim[i] = 0.25;
          alignas(64) double sink[8] = {};
          alignas(64) double buf[3 * kTileStride];
          for (int i = 0; i < 3 * kTileStride; ++i) buf[i] = in[std::size_t(i) % stride];
          std::vector<WideColumn> c(static_cast<std::size_t>(cols));
          for (int j = 0; j < cols; ++j)
            c[std::size_t(j)] = {in + j * stride, re, im, are, aim, out + j * stride, 0.0, 0.0};
          const double* Rp = R.data();
          const WideColumn* cp = c.data();
          for (long done = 0; done < work; done += cols) {
            switch (v) {
              case 0: probe_wide_kernels_512().translate(t, rows, ld, Rp, cols, cp); break;
              case 1: run_tiles<kBefore | kAfter>(t, rows, ld, Rp, cols, cp, buf, sink); break;
              case 2: run_tiles<kAfter>(t, rows, ld, Rp, cols, cp, buf, sink); break;
              case 3: run_tiles<kBefore>(t, rows, ld, Rp, cols, cp, buf, sink); break;
              case 4: run_tiles<0>(t, rows, ld, Rp, cols, cp, buf, sink); break;
              case 5: run_tiles<kBefore | kAfter | kAfterNoPerm>(t, rows, ld, Rp, cols, cp, buf, sink); break;
              case 6: run_tiles<kBefore | kAfter | kAfterNoStore>(t, rows, ld, Rp, cols, cp, buf, sink); break;
              case 7: run_tiles<kBefore | kAfter | kBeforeNoSwap>(t, rows, ld, Rp, cols, cp, buf, sink); break;
              case 8: run_tiles<kBefore | kAfter | kAfterNoStore | kAfterNoPerm>(t, rows, ld, Rp, cols, cp, buf, sink); break;
            }
          }
          if (out[0] + sink[0] == 42.0) std::puts("");
        }
        ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(ts.begin(), ts.end());
      const double flops = 4.0 * t * t * double((work + cols - 1) / cols * cols) * threads;
      std::printf("t %d rows %d %-9s threads %d cols %d: min %.3f ms, %.1f GFLOP/s\n", t, rows,
                  names[v], threads, cols, ts[0] * 1e3, flops * 1e-9 / ts[0]);
    }
  }
}
