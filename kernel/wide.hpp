#pragma once
// The kernels that run at the widest vectors the CPU has, chosen at run time (issue 23): the
// portable build is x86-64-v3 (AVX2, 256-bit vectors); where the CPU has AVX-512 the same code,
// compiled a second time for 512-bit vectors (kernel/wide_avx512.cpp), runs instead. Each kernel
// is written once (kernel/wide_impl.hpp) over a vector type; the two units instantiate it with a
// type of their own (internal linkage), and neither includes Eigen or instantiates a standard
// library template, so no code compiled for AVX-512 can be shared with the rest of the library
// (docs/math.md section 3.12).
#include <cstdint>

namespace mlfma2d {

/// \brief One complex column of a factored translation (WideKernels::translate): its input and
/// output terms (interleaved), its diagonal scalings before the product (bre = (Re b_0, Re b_0,
/// Re b_1, Re b_1, ...), bim = (-Im b_0, Im b_0, -Im b_1, Im b_1, ...): b x = bre x +
/// bim swap(x), one product and one fused multiply-add a double) and after it (planes: are =
/// (Re a_0, Re a_1, ...), aim = (Im a_0, ...), at least rows terms), and g, a term of in[0] that
/// out[0] gains apart (M2L's a_0 log(-z0); 0 for M2M and L2L). A null out is not written.
struct WideColumn {
  const double* in;
  const double *bre, *bim, *are, *aim;
  double* out;
  double gre, gim;
};

/// \brief The kernels of one vector width.
struct WideKernels {
  int bits = 256;  ///< 512 (AVX-512), 256 (AVX2) or 64 (scalar: a build without AVX2)
  /// Factored translations (docs/math.md section 3.4) on complex columns with real and
  /// imaginary parts interleaved, the scalings fused around the product: for each column j < cols
  /// (WideColumn), with S_j = b_j in_j (complex, term by term),
  ///   out_j[l] += a_j[l] (g_j in_j[0] [l = 0] + sum_{k < n} R(l, k) S_j[k])      (l < n)
  /// R is rows x n, column-major with leading dimension ld >= rows (its leading rows x n block
  /// of a larger matrix), rows >= n a multiple of kWideRows; n <= kWideMaxTerms. Each column's
  /// sums (P, real and imaginary) start from g_j in_j[0] (row 0) or 0 and run over k in
  /// increasing order, one fused multiply-add each; then Re a P_re - Im a P_im and Re a P_im +
  /// Im a P_re, each one product and one fused multiply-add: the same bits at every width. Reads
  /// in_j's and writes out_j's 2 n doubles alone.
  void (*translate)(int n, int rows, int ld, const double* R, int cols, const WideColumn* c);

  /// The near field at one target (tx, ty) over n sources (x, y) (n a multiple of
  /// kWideLanes), for `batch` densities at once (1, 2, 4 or 8; at most kWideBatch[order]):
  /// q[d], mx[d], my[d] the strengths of density d of the batch (null for an absent kind). Each
  /// pair's terms (kernel/pair.hpp: 0.5 log r2, g = 1/d and its powers) are computed once and
  /// applied to every density of the batch, their sums held in registers:
  ///   out[5 d + 0..4] = phi, E_x, E_y, H_xx, H_xy      (those of `order`: 0, 1 or 2)
  /// Coincident pairs add 0. False (out not written) when a pair is closer than the smallest
  /// normal r2 allows but not coincident: the caller sums that target through pair.hpp.
  bool (*near_batch)(int n, const double* x, const double* y, int batch, int order,
                     const double* const* q, const double* const* mx, const double* const* my,
                     double tx, double ty, double* out);

  /// The near field at m targets (tx, ty) over n sources (x, y) (n and `from` multiples of
  /// kWideLanes) of which those from `from` on are targets too (self-evaluation) and are summed
  /// both ways: charges alone, order 0, 1 or 2 (s = kPairSums[order] sums: phi, E_x, E_y, H_xx,
  /// H_xy), `batch` densities (at most kWideBatch[order]); q[d] the sources' charges of density
  /// d of the batch, qt[d] the targets'. Target i's sums are written to out[s d + c][i] (the same
  /// bits as near_batch's over these sources), and each source j >= from gains its sums from every
  /// target in back[s d + c][j - from], target by target. Each pair's terms are computed once for
  /// both directions. Coincident pairs add 0. False (out and back partly written) when a pair is
  /// closer than the smallest normal r2 allows but not coincident: the caller sums these targets
  /// and sources again through pair.hpp.
  bool (*near_mutual)(int m, const double* tx, const double* ty, const double* const* qt, int n,
                      const double* x, const double* y, int from, int batch, int order,
                      const double* const* q, double* const* back, double* const* out);

  /// Power sums of m points w (complex): for each density d < nd and k <= top,
  ///   out[((d (top + 1) + k) 2 + 0) 2 + c] = sum_j q_dj w_j^k      (c = 0 real, 1 imaginary)
  ///   out[((d (top + 1) + k) 2 + 1) 2 + c] = sum_j m_dj w_j^k      (m = mx + i my)
  /// q, mx, my point at density 0's first point, densities `stride` apart (null: absent;
  /// its sums are then not written). `scratch` holds power_sums_scratch(m, top, channels)
  /// doubles, channels = nd x (1 with q, + 2 with mx and my).
  void (*power_sums)(int m, const double* wr, const double* wi, int top, int nd, const double* q,
                     const double* mx, const double* my, long stride, double* out, double* scratch);

  /// Horner for `sets` (1, 2 or 3) polynomials at once at m points z_j = zr[j] + i zi[j]: for
  /// each s < sets, f_sj = sum_{l <= top} C_sl z_j^l with C_sl = cr[s][l] + i ci[s][l] (a
  /// polynomial of lower degree has zeros up to top: 0 z + c = c exactly), out[2 s][j] = Re f_sj
  /// and out[2 s + 1][j] = Im f_sj (a null out is not written). Each point's chain is the same
  /// operations at every width (the same bits).
  void (*horner)(int m, const double* zr, const double* zi, int sets, const double* const* cr,
                 const double* const* ci, int top, double* const* out);

  /// The peak probe: `iterations` rounds of independent fused multiply-adds at this width
  /// (enough chains to cover the latency of every FMA unit); *flops the floating-point
  /// operations done. Returns their sum (so that none is optimised away).
  double (*fma_probe)(long iterations, double* flops);
};

/// The lanes of the widest vectors (8 doubles): blocks of pairs are multiples of this.
constexpr int kWideLanes = 8;

/// Power sums: K = kPowerBlock powers of G channels at a time, their 2 G K sums in registers:
/// G = kPowerGroup at most (fewer for the last channels), 24 of the 32 vector registers of
/// AVX-512, 12 of the 16 of AVX2 (and of the scalar build).
constexpr int kPowerBlock = 3;
template <int W>
constexpr int kPowerGroup = W >= 8 ? 4 : 2;
/// A group of G channels alone makes its powers in registers as it sums: K = 4 of them a block
/// at 512 bits where the registers hold 2 G K sums and the powers (G <= 2), else kPowerBlock.
template <int W, int G>
constexpr int kPowerBlockAlone = W >= 8 && G <= 2 ? 4 : kPowerBlock;
/// The sums' rows for powers up to w^top: top + 1 rounded up to whole blocks of either size (a
/// multiple of 12).
constexpr int power_sums_rows(int top) {
  return (top + 12) / 12 * 12;
}
/// Points padded to whole vectors of the widest lanes.
constexpr long power_sums_points(int m) {
  return (long(m) + kWideLanes - 1) / kWideLanes * kWideLanes;
}
/// The channels power_sums runs: three (a charge and a dipole of one density) as four, the
/// fourth zero, so that at 512 bits they are one group with its powers made in registers (a
/// group of two and one of one, each reading stored powers, took 2.5x one channel's time).
constexpr int power_sums_channels(int channels) {
  return channels == 3 ? 4 : channels;
}
/// The scratch power_sums needs: the points and their next power, a block's powers, the
/// channels' strengths (2 + 2 + 2 kPowerBlock + channels rows of the points) and their sums.
constexpr long power_sums_scratch(int m, int top, int channels) {
  const int c = power_sums_channels(channels);
  return (4L + 2 * kPowerBlock + c) * power_sums_points(m) + 2L * c * power_sums_rows(top);
}

/// The largest batch of densities near_batch takes for each order (its sums in registers).
constexpr int kWideBatch[3] = {8, 4, 2};

/// Rows of R are padded to a multiple of this (one 512-bit vector: the row tiles of every width
/// divide it); the columns of a product to a multiple of kWideItems.
constexpr int kWideRows = 8;
/// The rows of R a product of n terms multiplies: n padded to a multiple of kWideRows.
constexpr int wide_rows(int n) {
  return (n + kWideRows - 1) / kWideRows * kWideRows;
}
/// Complex columns per tile of a product: their real and imaginary columns are 6.
constexpr int kWideItems = 3;
/// The complex terms a column of the far field's expansions holds: p + 1 padded to a multiple of
/// 4, so that every column is whole 64-byte lines and, the expansions being on 64 bytes, every
/// 512-bit vector of a translation's loads and stores lies in one line (docs/math.md 3.12).
constexpr int expansion_rows(int p) {
  return (p + 1 + 3) / 4 * 4;
}
/// The most terms a translation takes (each tile's scaled columns are on the stack).
constexpr int kWideMaxTerms = 64;

/// The widest kernels this CPU and this build have (512-bit where both have AVX-512), or the
/// 256-bit ones where MLFMA2D_VECTOR_BITS=256 asks for them.
const WideKernels& wide_kernels();
/// The kernels of `bits` (256 or 512), nullptr where this CPU or build lacks them (for tests
/// that compare the widths).
const WideKernels* wide_kernels_of(int bits);
/// Makes wide_kernels() return the kernels of `bits` from now on (tests and benchmarks that
/// compare the widths in one process; not while an evaluation runs); false (nothing changed)
/// where this CPU or build lacks them.
bool use_wide_kernels(int bits);

}  // namespace mlfma2d
