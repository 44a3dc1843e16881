// The wide kernels' code, written once over a vector type V (kernel/wide.hpp). Included by
// kernel/wide_avx2.cpp and kernel/wide_avx512.cpp only, inside an anonymous namespace after
// each defines its V:
//   V::W        doubles per vector
//   V::reg      the register type; V::zero(), V::load(p), V::store(p, r), V::set1(x),
//               V::fma(a, b, c) = a * b + c, V::fms(a, b, c) = a * b - c, add, sub, mul, div,
//               V::log(r) (glibc's vector log), V::hsum(r)
//   V::mask     a lane mask; V::lt(a, b), V::ne(a, b), V::mand, V::mor, V::any(m),
//               V::blend(m, a, b) = m ? a : b
// No standard library templates here: this code is compiled once per instruction set.

// V = R S, row tiles of RV x W rows and kWideCols columns held in registers; rows past the
// last whole tile of RV vectors go to tiles of RV / 2, RV / 4, ... vectors (rows is a multiple of
// kWideRows, so of every width's smallest tile).
template <class V, int RV>
int gemm_tiles(int n, int i0, int rows, int ld, const double* R, const double* s, double* out) {
  constexpr int kRows = RV * V::W;
  constexpr int kCols = mlfma2d::kWideCols;
  for (; i0 + kRows <= rows; i0 += kRows) {
    typename V::reg acc[RV][kCols];
    for (int r = 0; r < RV; ++r)
      for (int c = 0; c < kCols; ++c) acc[r][c] = V::zero();
    const double* a = R + i0;
    for (int k = 0; k < n; ++k, a += ld) {
      typename V::reg col[RV];
      for (int r = 0; r < RV; ++r) col[r] = V::load(a + r * V::W);
      for (int c = 0; c < kCols; ++c) {
        const typename V::reg b = V::set1(s[static_cast<long>(c) * n + k]);
        for (int r = 0; r < RV; ++r) acc[r][c] = V::fma(col[r], b, acc[r][c]);
      }
    }
    for (int c = 0; c < kCols; ++c)
      for (int r = 0; r < RV; ++r)
        V::store(out + static_cast<long>(c) * rows + i0 + r * V::W, acc[r][c]);
  }
  if constexpr (RV > 1) i0 = gemm_tiles<V, RV / 2>(n, i0, rows, ld, R, s, out);
  return i0;
}

template <class V, int kRowVectors>
void gemm_impl(int n, int rows, int ld, int cols, const double* R, const double* S, double* Vout) {
  constexpr int kCols = mlfma2d::kWideCols;
  for (int j0 = 0; j0 < cols; j0 += kCols)
    gemm_tiles<V, kRowVectors>(n, 0, rows, ld, R, S + static_cast<long>(j0) * n,
                               Vout + static_cast<long>(j0) * rows);
}

// The near field of a batch of densities at one target (WideKernels::near_batch): the pair's
// terms once, then every density of the batch, as add_pair in kernel/pair.hpp does:
//   phi += q hl + Re(m g);  f' = q g - m g^2;  f'' = -q g^2 + 2 m g^3;
//   E = (-Re f', Im f'),  H = (Re f'', -Im f'')
template <class V, int kBatch, int kOrder, bool kC, bool kD>
bool near_batch_impl(int n, const double* x, const double* y, const double* const* q,
                     const double* const* mx, const double* const* my, double tx, double ty,
                     double* out) {
  typedef typename V::reg reg;
  constexpr bool kG = kD || kOrder >= 1, kG2 = (kD && kOrder >= 1) || kOrder >= 2,
                 kG3 = kD && kOrder >= 2;
  constexpr int kSums = kOrder == 0 ? 1 : kOrder == 1 ? 3 : 5;
  const reg X = V::set1(tx), Y = V::set1(ty), one = V::set1(1.0), half = V::set1(0.5),
            two = V::set1(2.0), zero = V::zero(), min = V::set1(mlfma2d::kPairMinR2);
  reg acc[kBatch][kSums];
  for (int d = 0; d < kBatch; ++d)
    for (int c = 0; c < kSums; ++c) acc[d][c] = zero;
  typename V::mask tiny = V::lt(zero, zero);  // none
  for (int j = 0; j < n; j += V::W) {
    const reg dx = V::sub(X, V::load(x + j)), dy = V::sub(Y, V::load(y + j));
    const reg r2 = V::fma(dx, dx, V::mul(dy, dy));
    // r2 below the smallest normal double: 1 instead (log 1 = 0, and g = 0 where dx = dy = 0,
    // the skipped pair); a lane there with dx or dy not zero is a tiny-distance pair.
    const typename V::mask small = V::lt(r2, min);
    tiny = V::mor(tiny, V::mand(small, V::mor(V::ne(dx, zero), V::ne(dy, zero))));
    const reg r2m = V::blend(small, one, r2);
    reg hl = zero, gx = zero, gy = zero, g2x = zero, g2y = zero, g3x = zero, g3y = zero;
    if (kC) hl = V::mul(half, V::log(r2m));
    if (kG) {
      const reg inv = V::div(one, r2m);
      gx = V::mul(dx, inv);
      gy = V::mul(V::sub(zero, dy), inv);
    }
    if (kG2) {
      g2x = V::fms(gx, gx, V::mul(gy, gy));
      g2y = V::mul(two, V::mul(gx, gy));
    }
    if (kG3) {
      g3x = V::fms(g2x, gx, V::mul(g2y, gy));
      g3y = V::fma(g2x, gy, V::mul(g2y, gx));
    }
#pragma GCC unroll 8
    for (int d = 0; d < kBatch; ++d) {
      const reg qd = kC ? V::load(q[d] + j) : zero;
      const reg mxd = kD ? V::load(mx[d] + j) : zero, myd = kD ? V::load(my[d] + j) : zero;
      if (kC) acc[d][0] = V::fma(qd, hl, acc[d][0]);
      if (kD) acc[d][0] = V::add(acc[d][0], V::fms(mxd, gx, V::mul(myd, gy)));
      if (kOrder >= 1) {
        reg fr = zero, fi = zero;
        if (kC) {
          fr = V::mul(qd, gx);
          fi = V::mul(qd, gy);
        }
        if (kD) {
          fr = V::sub(fr, V::fms(mxd, g2x, V::mul(myd, g2y)));
          fi = V::sub(fi, V::fma(mxd, g2y, V::mul(myd, g2x)));
        }
        acc[d][1] = V::sub(acc[d][1], fr);
        acc[d][2] = V::add(acc[d][2], fi);
      }
      if (kOrder >= 2) {
        reg hr = zero, hi = zero;
        if (kC) {
          hr = V::sub(hr, V::mul(qd, g2x));
          hi = V::sub(hi, V::mul(qd, g2y));
        }
        if (kD) {
          hr = V::fma(two, V::fms(mxd, g3x, V::mul(myd, g3y)), hr);
          hi = V::fma(two, V::fma(mxd, g3y, V::mul(myd, g3x)), hi);
        }
        acc[d][3] = V::add(acc[d][3], hr);
        acc[d][4] = V::sub(acc[d][4], hi);
      }
    }
  }
  if (V::any(tiny)) return false;
  for (int d = 0; d < kBatch; ++d) {
    for (int c = 0; c < 5; ++c) out[5 * d + c] = 0;
    for (int c = 0; c < kSums; ++c) out[5 * d + c] = V::hsum(acc[d][c]);
  }
  return true;
}

// near_batch's instantiations: batch 1, 2, 4, 8 (at most kWideBatch[order]) x order x kinds.
template <class V, int kOrder, bool kC, bool kD>
bool near_batch_of(int n, const double* x, const double* y, int batch, const double* const* q,
                   const double* const* mx, const double* const* my, double tx, double ty,
                   double* out) {
  switch (batch) {
    case 1:
      return near_batch_impl<V, 1, kOrder, kC, kD>(n, x, y, q, mx, my, tx, ty, out);
    case 2:
      return near_batch_impl<V, 2, kOrder, kC, kD>(n, x, y, q, mx, my, tx, ty, out);
    case 4:
      if (kOrder <= 1)
        return near_batch_impl < V, 4, kOrder <= 1 ? kOrder : 1, kC,
               kD > (n, x, y, q, mx, my, tx, ty, out);
      break;
    case 8:
      if (kOrder == 0) return near_batch_impl<V, 8, 0, kC, kD>(n, x, y, q, mx, my, tx, ty, out);
      break;
  }
  return false;  // no such batch (the caller keeps to kWideBatch)
}

template <class V>
bool near_batch_dispatch(int n, const double* x, const double* y, int batch, int order,
                         const double* const* q, const double* const* mx, const double* const* my,
                         double tx, double ty, double* out) {
  const bool c = q != nullptr, d = mx != nullptr;
  const int kind = c && d ? 2 : d ? 1 : 0;
  switch (order * 3 + kind) {
    case 0:
      return near_batch_of<V, 0, true, false>(n, x, y, batch, q, mx, my, tx, ty, out);
    case 1:
      return near_batch_of<V, 0, false, true>(n, x, y, batch, q, mx, my, tx, ty, out);
    case 2:
      return near_batch_of<V, 0, true, true>(n, x, y, batch, q, mx, my, tx, ty, out);
    case 3:
      return near_batch_of<V, 1, true, false>(n, x, y, batch, q, mx, my, tx, ty, out);
    case 4:
      return near_batch_of<V, 1, false, true>(n, x, y, batch, q, mx, my, tx, ty, out);
    case 5:
      return near_batch_of<V, 1, true, true>(n, x, y, batch, q, mx, my, tx, ty, out);
    case 6:
      return near_batch_of<V, 2, true, false>(n, x, y, batch, q, mx, my, tx, ty, out);
    case 7:
      return near_batch_of<V, 2, false, true>(n, x, y, batch, q, mx, my, tx, ty, out);
    default:
      return near_batch_of<V, 2, true, true>(n, x, y, batch, q, mx, my, tx, ty, out);
  }
}

// Power sums (WideKernels::power_sums): the powers of kLanes points at a time in registers, each
// (d, k, kind) summed into one vector of lanes, reduced at the end.
template <class V>
void power_sums_impl(int m, const double* wr, const double* wi, int top, int nd, const double* q,
                     const double* mx, const double* my, long stride, double* out,
                     double* scratch) {
  constexpr int W = V::W;
  typedef typename V::reg reg;
  const int slots = 4 * nd * (top + 1);  // [d][k][kind][re, im], a vector each
  for (int i = 0; i < slots * W; ++i) scratch[i] = 0;
  for (int j0 = 0; j0 < m; j0 += W) {
    const int nb = m - j0 < W ? m - j0 : W;
    double lane_wr[W], lane_wi[W], lane_q[W], lane_mx[W], lane_my[W];
    reg ar, ai;
    if (nb == W) {
      ar = V::load(wr + j0);
      ai = V::load(wi + j0);
    } else {  // the last points: w = 0 and strengths 0 past them
      for (int b = 0; b < W; ++b) {
        lane_wr[b] = b < nb ? wr[j0 + b] : 0.0;
        lane_wi[b] = b < nb ? wi[j0 + b] : 0.0;
      }
      ar = V::load(lane_wr);
      ai = V::load(lane_wi);
    }
    for (int d = 0; d < nd; ++d) {
      const long row = d * stride + j0;
      auto strength = [&](const double* a, double* lane) {
        if (nb == W) return V::load(a + row);
        for (int b = 0; b < W; ++b) lane[b] = b < nb ? a[row + b] : 0.0;
        return V::load(lane);
      };
      const reg cq = q ? strength(q, lane_q) : V::zero();
      const reg cmx = mx ? strength(mx, lane_mx) : V::zero();
      const reg cmy = my ? strength(my, lane_my) : V::zero();
      reg tr = V::set1(1.0), ti = V::zero();
      double* a = scratch + static_cast<long>(4 * d * (top + 1)) * W;
      for (int k = 0; k <= top; ++k, a += 4 * W) {
        if (k > 0) {
          const reg nr = V::fms(tr, ar, V::mul(ti, ai));
          ti = V::fma(tr, ai, V::mul(ti, ar));
          tr = nr;
        }
        if (q) {
          V::store(a, V::fma(cq, tr, V::load(a)));
          V::store(a + W, V::fma(cq, ti, V::load(a + W)));
        }
        if (mx) {  // m t = (mx tr - my ti) + i (mx ti + my tr)
          V::store(a + 2 * W, V::fma(cmx, tr, V::sub(V::load(a + 2 * W), V::mul(cmy, ti))));
          V::store(a + 3 * W, V::fma(cmx, ti, V::fma(cmy, tr, V::load(a + 3 * W))));
        }
      }
    }
  }
  for (int i = 0; i < slots; ++i) out[i] = V::hsum(V::load(scratch + static_cast<long>(i) * W));
}

// Horner (WideKernels::horner): kChains vectors of points at a time, independent chains of
// complex multiply-adds in flight.
template <class V>
void horner_impl(int m, const double* zr, const double* zi, const double* cr, const double* ci,
                 int top, double* fr, double* fi) {
  constexpr int W = V::W, kChains = 4;
  typedef typename V::reg reg;
  for (int j0 = 0; j0 < m; j0 += kChains * W) {
    double lane_r[kChains * W], lane_i[kChains * W];
    const int nb = m - j0 < kChains * W ? m - j0 : kChains * W;
    for (int b = 0; b < kChains * W; ++b) {
      lane_r[b] = b < nb ? zr[j0 + b] : 0.0;
      lane_i[b] = b < nb ? zi[j0 + b] : 0.0;
    }
    reg tr[kChains], ti[kChains], ur[kChains], ui[kChains];
    for (int c = 0; c < kChains; ++c) {
      tr[c] = V::load(lane_r + c * W);
      ti[c] = V::load(lane_i + c * W);
      ur[c] = V::set1(cr[top]);
      ui[c] = V::set1(ci[top]);
    }
    for (int l = top - 1; l >= 0; --l) {
      const reg br = V::set1(cr[l]), bi = V::set1(ci[l]);
      for (int c = 0; c < kChains; ++c) {
        const reg re = V::fms(ur[c], tr[c], V::fms(ui[c], ti[c], br));
        ui[c] = V::fma(ur[c], ti[c], V::fma(ui[c], tr[c], bi));
        ur[c] = re;
      }
    }
    for (int c = 0; c < kChains; ++c) {
      V::store(lane_r + c * W, ur[c]);
      V::store(lane_i + c * W, ui[c]);
    }
    for (int b = 0; b < nb; ++b) {
      fr[j0 + b] = lane_r[b];
      if (fi) fi[j0 + b] = lane_i[b];
    }
  }
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
          &gemm_impl<V, kRowVectors>,
          &near_batch_dispatch<V>,
          &power_sums_impl<V>,
          &horner_impl<V>,
          &fma_probe_impl<V, kChains>};
}
