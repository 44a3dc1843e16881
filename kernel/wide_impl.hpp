// The wide kernels' code, written once over a vector type V (kernel/wide.hpp). Included by
// kernel/wide_avx2.cpp and kernel/wide_avx512.cpp only, inside an anonymous namespace after
// each defines its V:
//   V::W        doubles per vector
//   V::reg      the register type; V::zero(), V::load(p), V::store(p, r), V::set1(x),
//               V::first(x) = (x, 0, ..., 0) (W >= 2),
//               V::fma(a, b, c) = a * b + c, V::fms(a, b, c) = a * b - c, add, sub, mul, div,
//               V::hsum(r), V::hsums(v, n, out) (out[i] = hsum(v[i]), i < n); and half_log_of's
//               operations (kernel/half_log.hpp): V::Parts, V::parts(r), V::invc(i), V::hlogc(i)
//   V::mask     a lane mask; V::lt(a, b), V::ne(a, b), V::mand, V::mor, V::any(m),
//               V::blend(m, a, b) = m ? a : b
//   V::interleave(re, im, &lo, &hi)  (re_0, im_0, re_1, im_1, ...) in lo, then hi
//   V::swap(r)  each pair of lanes swapped (W >= 2);  V::load_first(p, c),
//               V::store_first(p, r, c): the first c < W lanes alone (W >= 2)
// No standard library templates here: this code is compiled once per instruction set.

// The scaling before a translation's product: y = b x as re * x + im * swap(x) with (re, im) =
// (Re b, Re b, -Im b, Im b) per term (WideColumn's bre, bim), for one term (W = 1: no lanes to
// swap) or one vector of interleaved terms, the first c < W doubles alone through masks.
inline void scale_term(const double* re, const double* im, double xr, double xi, double* y) {
  y[0] = __builtin_fma(re[0], xr, im[0] * xi);
  y[1] = __builtin_fma(re[1], xi, im[1] * xr);
}

template <class V>
[[gnu::always_inline]] inline void scale_vector(const double* re, const double* im,
                                                typename V::reg x, double* y, int c) {
  if (c >= V::W)
    V::store(y, V::fma(V::load(re), x, V::mul(V::load(im), V::swap(x))));
  else
    V::store_first(y, V::fma(V::load_first(re, c), x, V::mul(V::load_first(im, c), V::swap(x))), c);
}

// One vector of rows i.. of a column of R S, its real and imaginary parts in re and im: scaled
// by `after` (planes: are, aim), interleaved and added to out; nothing past the column's 2 n
// doubles. Inlined (GCC called it, 12 times a tile: a tenth of M2L's time).
template <class V>
[[gnu::always_inline]] inline void scale_add_pair(typename V::reg re, typename V::reg im, int i,
                                                  int n, const double* are, const double* aim,
                                                  double* out) {
  constexpr int W = V::W;
  const typename V::reg ar = V::load(are + i), ai = V::load(aim + i);
  const typename V::reg tr = V::fms(ar, re, V::mul(ai, im)), ti = V::fma(ar, im, V::mul(ai, re));
  if constexpr (W == 1) {
    out[2 * i] += tr;
    out[2 * i + 1] += ti;
  } else {
    typename V::reg half[2];
    V::interleave(tr, ti, &half[0], &half[1]);
    for (int h = 0; h < 2; ++h) {
      const int at = 2 * i + h * W, c = 2 * n - at;  // doubles left in the column
      if (c <= 0) break;
      if (c >= W)
        V::store(out + at, V::add(V::load(out + at), half[h]));
      else
        V::store_first(out + at, V::add(V::load_first(out + at, c), half[h]), c);
    }
  }
}

// A tile's scaled columns: column j's S = b in at buf + j kTileStride (2 n doubles).
constexpr int kTileStride = 2 * mlfma2d::kWideMaxTerms;

// The scaling before the product of a tile's `cols` columns (the rest of its kWideItems zero:
// they enter the product, and are not added anywhere).
template <class V>
void scale_tile(int n, int cols, const mlfma2d::WideColumn* c, double* buf) {
  constexpr int W = V::W;
  const int m = 2 * n;
  for (int j = 0; j < mlfma2d::kWideItems; ++j) {
    double* y = buf + j * kTileStride;
    if (j >= cols) {
      for (int i = 0; i < m; ++i) y[i] = 0;
      continue;
    }
    const double *x = c[j].in, *re = c[j].bre, *im = c[j].bim;
    for (int i = 0; i<m; i += W> 1 ? W : 2) {
      if constexpr (W == 1) {
        scale_term(re + i, im + i, x[i], x[i + 1], y + i);
      } else {
        const int r = m - i;
        scale_vector<V>(re + i, im + i, r >= W ? V::load(x + i) : V::load_first(x + i, r), y + i,
                        r);
      }
    }
  }
}

// Row 0's sum of a column starts from g in[0] (WideColumn::gre, gim), the product as scale_term
// computes one: one lane, the others 0.
template <class V>
inline void start_sums(const mlfma2d::WideColumn& c, typename V::reg* re, typename V::reg* im) {
  if (c.gre == 0 && c.gim == 0) return;
  double g[2];
  const double gr[2] = {c.gre, c.gre}, gi[2] = {-c.gim, c.gim};
  scale_term(gr, gi, c.in[0], c.in[1], g);
  if constexpr (V::W == 1) {
    *re = g[0];
    *im = g[1];
  } else {
    *re = V::first(g[0]);
    *im = V::first(g[1]);
  }
}

// The factored translations' product and after-scaling (WideKernels::translate): row tiles of
// RV x W rows and kWideItems columns (their real and imaginary parts) of R S held in registers,
// then each column's rows below n scaled by its `after`, interleaved and added to its output (the
// products never stored); rows past the last whole tile of RV vectors go to one tile of the
// vectors left (RV - 1, RV - 2, ...: M2L's kinds of 18-22 terms are 24 rows, one tile of 3
// vectors at 512 bits, where tiles of 2 and 1 read every column twice and the tile of 1 waits on
// its loads; rows is a multiple of kWideRows, so of every width's vector).
template <class V, int RV>
int translate_tiles(int n, int i0, int rows, int ld, const double* R, const double* s, int cols,
                    const mlfma2d::WideColumn* c) {
  constexpr int kRows = RV * V::W;
  constexpr int kCols = 2 * mlfma2d::kWideItems;
  for (; i0 + kRows <= rows; i0 += kRows) {
    typename V::reg acc[RV][kCols];
    for (int r = 0; r < RV; ++r)
      for (int k = 0; k < kCols; ++k) acc[r][k] = V::zero();
    if (i0 == 0)
      for (int j = 0; j < cols; ++j) start_sums<V>(c[j], &acc[0][2 * j], &acc[0][2 * j + 1]);
    const double* a = R + i0;
    for (int k = 0; k < n; ++k, a += ld) {
      typename V::reg col[RV];
      for (int r = 0; r < RV; ++r) col[r] = V::load(a + r * V::W);
      for (int q = 0; q < kCols; ++q) {
        const typename V::reg b = V::set1(s[(q / 2) * kTileStride + 2 * k + q % 2]);
        for (int r = 0; r < RV; ++r) acc[r][q] = V::fma(col[r], b, acc[r][q]);
      }
    }
    // Both loops unrolled whole, so that every accumulator keeps a constant index and stays in
    // its register (with the bounds cols and n in the loops' conditions GCC stored all of them
    // on the stack after the product and loaded each back).
#pragma GCC unroll 8
    for (int j = 0; j < mlfma2d::kWideItems; ++j) {
      if (j >= cols || !c[j].out) continue;
#pragma GCC unroll 8
      for (int r = 0; r < RV; ++r)
        if (i0 + r * V::W < n)
          scale_add_pair<V>(acc[r][2 * j], acc[r][2 * j + 1], i0 + r * V::W, n, c[j].are, c[j].aim,
                            c[j].out);
    }
  }
  if constexpr (RV > 1) i0 = translate_tiles<V, RV - 1>(n, i0, rows, ld, R, s, cols, c);
  return i0;
}

// Tile by tile: the scaling before into a buffer in L1, the product and the scaling after; the
// next tile's inputs asked for meanwhile (gathered from the expansions: what waits on memory).
template <class V, int kRowVectors>
void translate_impl(int n, int rows, int ld, const double* R, int cols,
                    const mlfma2d::WideColumn* c) {
  constexpr int kItems = mlfma2d::kWideItems;
  alignas(64) double buf[kItems * kTileStride];
  for (int j0 = 0; j0 < cols; j0 += kItems) {
    const int m = cols - j0 < kItems ? cols - j0 : kItems;
    const int next = cols - j0 - kItems < kItems ? cols - j0 - kItems : kItems;
    for (int j = 0; j < next; ++j)
      for (int i = 0; i < 2 * n; i += 8) __builtin_prefetch(c[j0 + kItems + j].in + i);
    scale_tile<V>(n, m, c + j0, buf);
    translate_tiles<V, kRowVectors>(n, 0, rows, ld, R, buf, m, c + j0);
  }
}

// The near field: near_batch, near_mutual and their dispatch.
#include "kernel/wide_near_impl.hpp"

// Power sums (WideKernels::power_sums) as products of the points' powers and their strengths,
// K powers at a time (kPowerBlock; a group alone kPowerBlockAlone): for each group of G channels
// (q, mx, my of a density) the G x K complex sums over every point are held in 2 G K vector
// registers, and reduced across the lanes at the end (V::hsums). The powers come from each point's
// next power (kept between blocks) by K complex products; with several groups they are made once
// per block into 2 K rows of the points, which every group reads from the cache (made once for
// every density, not once per density: nd = 8 at top = 30 took 10-12x the time of one density that
// way, its sums through memory, results/h200/session-2026-11-28c/call1 and call2); one group (1, 2
// or 4 channels) makes them in registers as it sums.
template <class V, int G, int K, bool kMake>
void power_block(long points, long mp, const double* w, double* next, const double* pw,
                 const double* st, double* sums, int rows) {
  typedef typename V::reg reg;
  reg acc[G][K][2];
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < K; ++k) acc[g][k][0] = acc[g][k][1] = V::zero();
  for (long v = 0; v < points; v += V::W) {
    reg c[G];
    for (int g = 0; g < G; ++g) c[g] = V::load(st + g * mp + v);
    reg ar = V::zero(), ai = V::zero(), tr = V::zero(), ti = V::zero();
    if (kMake) {
      ar = V::load(w + v), ai = V::load(w + mp + v);
      tr = V::load(next + v), ti = V::load(next + mp + v);
    }
    for (int k = 0; k < K; ++k) {
      reg pr, pi;
      if (kMake) {
        pr = tr, pi = ti;
        const reg nr = V::fms(tr, ar, V::mul(ti, ai));
        ti = V::fma(tr, ai, V::mul(ti, ar));
        tr = nr;
      } else {
        pr = V::load(pw + 2 * k * mp + v), pi = V::load(pw + (2 * k + 1) * mp + v);
      }
      for (int g = 0; g < G; ++g) {
        acc[g][k][0] = V::fma(c[g], pr, acc[g][k][0]);
        acc[g][k][1] = V::fma(c[g], pi, acc[g][k][1]);
      }
    }
    if (kMake) {
      V::store(next + v, tr);
      V::store(next + mp + v, ti);
    }
  }
  for (int g = 0; g < G; ++g) V::hsums(&acc[g][0][0], 2 * K, sums + g * rows * 2);
}

// Every channel of one block of made powers: groups of G = kPowerGroup, then the rest in groups
// of G / 2, G / 4, ...
template <class V, int G>
void power_groups(int from, int channels, long points, long mp, int rows, const double* pw,
                  const double* st, double* sums) {
  for (; from + G <= channels; from += G)
    power_block<V, G, mlfma2d::kPowerBlock, false>(points, mp, nullptr, nullptr, pw, st + from * mp,
                                                   sums + static_cast<long>(from) * rows * 2, rows);
  if constexpr (G > 1) power_groups<V, G / 2>(from, channels, points, mp, rows, pw, st, sums);
}

// One group of G channels over every block of powers, each made in registers; false when the
// channels are not G (nor a smaller power of two).
template <class V, int G>
bool power_group_alone(int channels, long points, long mp, int top, int rows, const double* w,
                       double* next, const double* st, double* sums) {
  constexpr int K = mlfma2d::kPowerBlockAlone<V::W, G>;
  if (channels == G) {
    for (int k0 = 0; k0 <= top; k0 += K)
      power_block<V, G, K, true>(points, mp, w, next, nullptr, st, sums + 2 * k0, rows);
    return true;
  }
  if constexpr (G > 1)
    return power_group_alone<V, G / 2>(channels, points, mp, top, rows, w, next, st, sums);
  return false;
}

// to[j] = from[j] for j < m, 0 up to `points` (a multiple of W; all 0 without from), by vectors
// (a loop of conditional scalars here took a fifth of the power sums' time at 244 points:
// results/dev-machine/issue23-k/perf_power_sums.txt).
template <class V>
void copy_padded(const double* from, long m, long points, double* to) {
  constexpr int W = V::W;
  long j = 0;
  if (from)
    for (; j + W <= m; j += W) V::store(to + j, V::load(from + j));
  if constexpr (W > 1)
    if (from && j < m) {
      V::store(to + j, V::load_first(from + j, int(m - j)));
      j += W;
    }
  for (; j < points; j += W) V::store(to + j, V::zero());
}

template <class V>
void power_sums_impl(int m, const double* wr, const double* wi, int top, int nd, const double* q,
                     const double* mx, const double* my, long stride, double* out,
                     double* scratch) {
  constexpr int W = V::W, K = mlfma2d::kPowerBlock;
  typedef typename V::reg reg;
  const int rows = mlfma2d::power_sums_rows(top);
  const long mp = mlfma2d::power_sums_points(m), points = (m + W - 1) / W * W;
  const int kinds = (q ? 1 : 0) + (mx ? 2 : 0), given = kinds * nd;
  // Three channels as a group of four where a group is four (the fourth zero: kernel/wide.hpp).
  const int padded = mlfma2d::power_sums_channels(given);
  const int channels = padded <= mlfma2d::kPowerGroup<W> ? padded : given;
  double* w = scratch;                                   // 2 x mp: w, 0 past the points
  double* next = w + 2 * mp;                             // 2 x mp: the block's first power
  double* pw = next + 2 * mp;                            // 2 K x mp: re, im of K powers
  double* st = pw + 2 * K * mp;                          // channels x mp
  double* sums = st + static_cast<long>(channels) * mp;  // channels x rows x (re, im)
  copy_padded<V>(wr, m, points, w);
  copy_padded<V>(wi, m, points, w + mp);
  for (long j = 0; j < points; j += W) {
    V::store(next + j, V::set1(1.0));
    V::store(next + mp + j, V::zero());
  }
  // Channel c = kind * nd + d: the charges of every density, then mx, then my; 0 past the
  // points (and in a channel past the given ones).
  const double* kind_rows[3] = {q ? q : mx, q ? mx : my, my};
  for (int c = 0; c < channels; ++c)
    copy_padded<V>(c < given ? kind_rows[c / nd] + (c % nd) * stride : nullptr, m, points,
                   st + c * mp);
  if (!power_group_alone<V, mlfma2d::kPowerGroup<W>>(channels, points, mp, top, rows, w, next, st,
                                                     sums))
    for (int k0 = 0; k0 <= top; k0 += K) {
      for (long v = 0; v < points; v += W) {
        const reg ar = V::load(w + v), ai = V::load(w + mp + v);
        reg tr = V::load(next + v), ti = V::load(next + mp + v);
        for (int k = 0; k < K; ++k) {
          V::store(pw + 2 * k * mp + v, tr);
          V::store(pw + (2 * k + 1) * mp + v, ti);
          const reg nr = V::fms(tr, ar, V::mul(ti, ai));
          ti = V::fma(tr, ai, V::mul(ti, ar));
          tr = nr;
        }
        V::store(next + v, tr);
        V::store(next + mp + v, ti);
      }
      power_groups<V, mlfma2d::kPowerGroup<W>>(0, channels, points, mp, rows, pw, st,
                                               sums + 2 * k0);
    }
  // out[((d (top + 1) + k) 2 + kind) 2 + c]: q's sums as they are, the moments' m = mx + i my.
  for (int d = 0; d < nd; ++d)
    for (int k = 0; k <= top; ++k) {
      double* o = out + ((d * (top + 1) + k) * 2) * 2;
      if (q) {
        const double* a = sums + (static_cast<long>(d) * rows + k) * 2;
        o[0] = a[0];
        o[1] = a[1];
      }
      if (mx) {
        const int first = q ? nd : 0;
        const double* a = sums + (static_cast<long>(first + d) * rows + k) * 2;
        const double* b = sums + (static_cast<long>(first + nd + d) * rows + k) * 2;
        o[2] = a[0] - b[1];
        o[3] = a[1] + b[0];
      }
    }
}

// Horner (WideKernels::horner): S polynomials at once over C vectors of points, the points'
// powers shared, C x S independent chains of dependent complex multiply-adds in flight (as many
// as the registers hold: kHornerChains); a block of r <= C W points, the last vector partial.
template <int W, int S>
constexpr int kHornerChains = W >= 8 ? (S == 1   ? 6
                                        : S == 2 ? 4
                                                 : 3)
                                     : (S == 1   ? 3
                                        : S == 2 ? 2
                                                 : 1);

template <class V, int S, int C>
[[gnu::always_inline]] inline void horner_block(int r, const double* zr, const double* zi,
                                                const double* const* cr, const double* const* ci,
                                                int top, double* const* out, int at) {
  constexpr int W = V::W;
  typedef typename V::reg reg;
  reg tr[C], ti[C], ur[S][C], ui[S][C];
  for (int c = 0; c < C; ++c) {
    const int left = r - c * W;  // points of vector c (at least 1)
    if constexpr (W == 1) {
      tr[c] = zr[c], ti[c] = zi[c];
    } else if (left >= W) {
      tr[c] = V::load(zr + c * W), ti[c] = V::load(zi + c * W);
    } else {
      tr[c] = V::load_first(zr + c * W, left), ti[c] = V::load_first(zi + c * W, left);
    }
    for (int s = 0; s < S; ++s) ur[s][c] = V::set1(cr[s][top]), ui[s][c] = V::set1(ci[s][top]);
  }
  for (int l = top - 1; l >= 0; --l)
    for (int s = 0; s < S; ++s) {
      const reg br = V::set1(cr[s][l]), bi = V::set1(ci[s][l]);
      for (int c = 0; c < C; ++c) {
        const reg re = V::fms(ur[s][c], tr[c], V::fms(ui[s][c], ti[c], br));
        ui[s][c] = V::fma(ur[s][c], ti[c], V::fma(ui[s][c], tr[c], bi));
        ur[s][c] = re;
      }
    }
  for (int s = 0; s < S; ++s)
    for (int h = 0; h < 2; ++h) {
      double* o = out[2 * s + h];
      if (!o) continue;
      o += at;
      for (int c = 0; c < C; ++c) {
        const int left = r - c * W;
        const reg v = h == 0 ? ur[s][c] : ui[s][c];
        if constexpr (W == 1)
          o[c] = v;
        else if (left >= W)
          V::store(o + c * W, v);
        else
          V::store_first(o + c * W, v, left);
      }
    }
}

// The last r < C W points: the fewest vectors that hold them.
template <class V, int S, int C>
void horner_tail(int r, const double* zr, const double* zi, const double* const* cr,
                 const double* const* ci, int top, double* const* out, int at) {
  if constexpr (C > 1)
    if (r <= (C - 1) * V::W) return horner_tail<V, S, C - 1>(r, zr, zi, cr, ci, top, out, at);
  horner_block<V, S, C>(r, zr, zi, cr, ci, top, out, at);
}

template <class V, int S>
void horner_sets(int m, const double* zr, const double* zi, const double* const* cr,
                 const double* const* ci, int top, double* const* out) {
  constexpr int C = kHornerChains<V::W, S>, B = C * V::W;
  int j = 0;
  for (; j + B <= m; j += B) horner_block<V, S, C>(B, zr + j, zi + j, cr, ci, top, out, j);
  if (j < m) horner_tail<V, S, C>(m - j, zr + j, zi + j, cr, ci, top, out, j);
}

template <class V>
void horner_impl(int m, const double* zr, const double* zi, int sets, const double* const* cr,
                 const double* const* ci, int top, double* const* out) {
  if (sets == 1) horner_sets<V, 1>(m, zr, zi, cr, ci, top, out);
  if (sets == 2) horner_sets<V, 2>(m, zr, zi, cr, ci, top, out);
  if (sets == 3) horner_sets<V, 3>(m, zr, zi, cr, ci, top, out);
}

// The peak probe (WideKernels::fma_probe): kChains independent chains of dependent FMAs.
template <class V, int kChains>
double fma_probe_impl(long iterations, double* flops) {
  typedef typename V::reg reg;
  reg acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = V::set1(1.0 + 1e-3 * c);
  const reg a = V::set1(0.9999999), b = V::set1(1e-9);
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 32
    for (int c = 0; c < kChains; ++c) acc[c] = V::fma(acc[c], a, b);
  }
  reg sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = V::add(sum, acc[c]);
  *flops = 2.0 * double(iterations) * kChains * V::W;
  return V::hsum(sum);
}

// The kernels of one width: every kernel above instantiated with this unit's V (the function
// pointers' targets have internal linkage, like V). Aggregate initialisation: no constructor of
// WideKernels (an inline function other units share) is compiled here.
template <class V, int kRowVectors, int kChains>
mlfma2d::WideKernels kernels_of(int bits) {
  return {bits,
          &translate_impl<V, kRowVectors>,
          &near_batch_dispatch<V>,
          &near_mutual_dispatch<V>,
          &power_sums_impl<V>,
          &horner_impl<V>,
          &fma_probe_impl<V, kChains>};
}
