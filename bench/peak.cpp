// Row p of mlfma2d_bench (issue 23): the machine's double-precision FMA peak, measured by the
// probe of the wide kernels (kernel/wide.hpp: independent chains of fused multiply-adds) at the
// build's vector width (256 bits) and at the widest this CPU has, on every thread and on one;
// later rows state the far field and the cpu near field as fractions of it.
#include "bench.hpp"
#include "runtime/text.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::bench {
namespace {
Peak g_peak;
}  // namespace

const Peak& measure_peak(int threads) {
  g_peak.threads = threads;
  g_peak.wide_bits = tuning::widest_vector_bits();
  g_peak.narrow_all = tuning::fma_peak_gflops(256, threads);
  g_peak.narrow_one = tuning::fma_peak_gflops(256, 1);
  g_peak.wide_all = tuning::fma_peak_gflops(g_peak.wide_bits, threads);
  g_peak.wide_one = tuning::fma_peak_gflops(g_peak.wide_bits, 1);
  g_peak.translation_all = tuning::translation_gflops(g_peak.wide_bits, threads);
  g_peak.translation_one = tuning::translation_gflops(g_peak.wide_bits, 1);
  g_peak.measured = true;
  return g_peak;
}

const Peak& peak() {
  return g_peak;
}

void row_peak(int threads) {
  const Peak& p = measure_peak(threads);
  for (int w : {256, p.wide_bits}) {
    Row r;
    r.id = "p";
    r.what = format("FMA peak, %d-bit vectors, %d threads (one thread)", w, threads);
    r.target = "-";
    const double all = w == 256 ? p.narrow_all : p.wide_all;
    const double one = w == 256 ? p.narrow_one : p.wide_one;
    r.measured = format("%.0f GFLOP/s (%.1f)", all, one);
    r.met = "n/a";
    r.detail = {{"bits", w}, {"threads", threads}, {"gflops", all}, {"gflops_one_thread", one}};
    add_row(r);
    if (w == p.wide_bits) break;  // no AVX-512: one row
  }
  // The translation kernel alone, in cache: the bound M2L would reach without gathering and
  // scaling its sources (its in-place rate: the far field's figures of the other rows).
  Row r;
  r.id = "p";
  r.what = format("far-field translation kernel (31 terms, in cache), %d-bit, %d threads (one)",
                  p.wide_bits, threads);
  r.target = "-";
  r.measured = format("%.0f GFLOP/s (%.1f) = %.0f%% of peak", p.translation_all, p.translation_one,
                      p.wide_all > 0 ? 100 * p.translation_all / p.wide_all : 0.0);
  r.met = "n/a";
  r.detail = {{"bits", p.wide_bits},
              {"threads", threads},
              {"gflops", p.translation_all},
              {"gflops_one_thread", p.translation_one},
              {"fraction_of_peak", p.wide_all > 0 ? p.translation_all / p.wide_all : 0.0}};
  add_row(r);
}

}  // namespace mlfma2d::bench
