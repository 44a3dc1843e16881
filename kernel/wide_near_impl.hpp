// The wide kernels' near field (WideKernels::near_batch, near_mutual), written once over a
// vector type V: part of kernel/wide_impl.hpp, included there (inside the anonymous namespace of
// kernel/wide_avx2.cpp and kernel/wide_avx512.cpp, after each defines its V; see
// kernel/wide_impl.hpp for V's operations). No standard library templates here: this code is
// compiled once per instruction set.

// A vector of pairs' terms (kernel/pair.hpp's, at the target (X, Y) from sources x[0..W)): 0.5 log
// r2 (with kLog) and g = 1/d (with kG), 0 where not asked; tiny gains the lanes of pairs too close
// for these formulas.
template <class V>
struct WidePair {
  typename V::reg hl, gx, gy;
};
template <class V, bool kLog, bool kG>
[[gnu::always_inline]] inline WidePair<V> wide_pair(typename V::reg X, typename V::reg Y,
                                                    const double* x, const double* y,
                                                    typename V::mask* tiny) {
  typedef typename V::reg reg;
  const reg one = V::set1(1.0), zero = V::zero();
  const reg dx = V::sub(X, V::load(x)), dy = V::sub(Y, V::load(y));
  const reg r2 = V::fma(dx, dx, V::mul(dy, dy));
  // r2 below the smallest normal double: 1 instead (log 1 = 0, and g = 0 where dx = dy = 0, the
  // skipped pair); a lane there with dx or dy not zero is a tiny-distance pair.
  const typename V::mask small = V::lt(r2, V::set1(mlfma2d::kPairMinR2));
  *tiny = V::mor(*tiny, V::mand(small, V::mor(V::ne(dx, zero), V::ne(dy, zero))));
  const reg r2m = V::blend(small, one, r2);
  WidePair<V> t{zero, zero, zero};
  // 0.5 log r2 by the table (kernel/half_log.hpp), infinite where r2 is
  if (kLog)
    t.hl =
        V::blend(V::lt(V::set1(__DBL_MAX__), r2m), V::set1(__builtin_inf()), half_log_of(V{}, r2m));
  if (kG) {
    const reg inv = V::div(one, r2m);
    t.gx = V::mul(dx, inv);
    t.gy = V::mul(V::sub(zero, dy), inv);
  }
  return t;
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
  constexpr int kSums = mlfma2d::kPairSums[kOrder];
  const reg X = V::set1(tx), Y = V::set1(ty), two = V::set1(2.0), zero = V::zero();
  reg acc[kBatch][kSums];
  for (int d = 0; d < kBatch; ++d)
    for (int c = 0; c < kSums; ++c) acc[d][c] = zero;
  typename V::mask tiny = V::lt(zero, zero);  // none
  for (int j = 0; j < n; j += V::W) {
    const WidePair<V> t = wide_pair<V, kC, kG>(X, Y, x + j, y + j, &tiny);
    const reg hl = t.hl, gx = t.gx, gy = t.gy;
    reg g2x = zero, g2y = zero, g3x = zero, g3y = zero;
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

// The near field at targets over sources of which those from `from` on are summed both ways
// (WideKernels::near_mutual): charges alone, order 0, 1 or 2. The pair's terms once (as
// near_batch_impl's), then for each density the target's sums from the sources and, past
// `from`, each source's from the target: the potential's term hl and g^2 are symmetric, g = 1/d
// changes sign, so source j gains E = (qt gx, -qt gy) where the target gains (-q gx, q gy), and
// the same Hessian term with qt for q.
template <class V, int kBatch, int kOrder, bool kBack>
[[gnu::always_inline]] inline void near_mutual_span(
    int j0, int j1, int from, const double* x, const double* y, const double* const* q,
    typename V::reg X, typename V::reg Y, const typename V::reg* Q, double* const* back,
    typename V::reg (*acc)[mlfma2d::kPairSums[kOrder]], typename V::mask* tiny) {
  typedef typename V::reg reg;
  constexpr int kSums = mlfma2d::kPairSums[kOrder];
  const reg two = V::set1(2.0), zero = V::zero();
  for (int j = j0; j < j1; j += V::W) {
    const WidePair<V> t = wide_pair<V, true, (kOrder >= 1)>(X, Y, x + j, y + j, tiny);
    const reg hl = t.hl, gx = t.gx, gy = t.gy;
    reg g2x = zero, g2y = zero;
    if (kOrder >= 2) {
      g2x = V::fms(gx, gx, V::mul(gy, gy));
      g2y = V::mul(two, V::mul(gx, gy));
    }
#pragma GCC unroll 8
    for (int d = 0; d < kBatch; ++d) {
      const reg qd = V::load(q[d] + j), Qd = Q[d];
      acc[d][0] = V::fma(qd, hl, acc[d][0]);
      if (kOrder >= 1) {
        acc[d][1] = V::sub(acc[d][1], V::mul(qd, gx));  // near_batch_impl's operations
        acc[d][2] = V::add(acc[d][2], V::mul(qd, gy));
      }
      if (kOrder >= 2) {
        acc[d][3] = V::add(acc[d][3], V::sub(zero, V::mul(qd, g2x)));
        acc[d][4] = V::sub(acc[d][4], V::sub(zero, V::mul(qd, g2y)));
      }
      if (kBack) {
        double* b[kSums];
        for (int c = 0; c < kSums; ++c) b[c] = back[kSums * d + c] + (j - from);
        V::store(b[0], V::fma(Qd, hl, V::load(b[0])));
        if (kOrder >= 1) {
          V::store(b[1], V::fma(Qd, gx, V::load(b[1])));
          V::store(b[2], V::sub(V::load(b[2]), V::mul(Qd, gy)));
        }
        if (kOrder >= 2) {
          V::store(b[3], V::add(V::load(b[3]), V::sub(zero, V::mul(Qd, g2x))));
          V::store(b[4], V::sub(V::load(b[4]), V::sub(zero, V::mul(Qd, g2y))));
        }
      }
    }
  }
}

template <class V, int kBatch, int kOrder>
bool near_mutual_impl(int m, const double* tx, const double* ty, const double* const* qt, int n,
                      const double* x, const double* y, int from, const double* const* q,
                      double* const* back, double* const* out) {
  typedef typename V::reg reg;
  constexpr int kSums = mlfma2d::kPairSums[kOrder];
  typename V::mask tiny = V::lt(V::zero(), V::zero());  // none
  for (int i = 0; i < m; ++i) {
    const reg X = V::set1(tx[i]), Y = V::set1(ty[i]);
    reg acc[kBatch][kSums], Q[kBatch];
    for (int d = 0; d < kBatch; ++d) {
      Q[d] = V::set1(qt[d][i]);
      for (int c = 0; c < kSums; ++c) acc[d][c] = V::zero();
    }
    near_mutual_span<V, kBatch, kOrder, false>(0, from, from, x, y, q, X, Y, Q, back, acc, &tiny);
    near_mutual_span<V, kBatch, kOrder, true>(from, n, from, x, y, q, X, Y, Q, back, acc, &tiny);
    for (int d = 0; d < kBatch; ++d)
      for (int c = 0; c < kSums; ++c) out[kSums * d + c][i] = V::hsum(acc[d][c]);
  }
  return !V::any(tiny);
}

template <class V>
bool near_mutual_dispatch(int m, const double* tx, const double* ty, const double* const* qt, int n,
                          const double* x, const double* y, int from, int batch, int order,
                          const double* const* q, double* const* back, double* const* out) {
  switch (order * 16 + batch) {
    case 1:
      return near_mutual_impl<V, 1, 0>(m, tx, ty, qt, n, x, y, from, q, back, out);
    case 2:
      return near_mutual_impl<V, 2, 0>(m, tx, ty, qt, n, x, y, from, q, back, out);
    case 4:
      return near_mutual_impl<V, 4, 0>(m, tx, ty, qt, n, x, y, from, q, back, out);
    case 8:
      return near_mutual_impl<V, 8, 0>(m, tx, ty, qt, n, x, y, from, q, back, out);
    case 17:
      return near_mutual_impl<V, 1, 1>(m, tx, ty, qt, n, x, y, from, q, back, out);
    case 18:
      return near_mutual_impl<V, 2, 1>(m, tx, ty, qt, n, x, y, from, q, back, out);
    case 20:
      return near_mutual_impl<V, 4, 1>(m, tx, ty, qt, n, x, y, from, q, back, out);
    case 33:
      return near_mutual_impl<V, 1, 2>(m, tx, ty, qt, n, x, y, from, q, back, out);
    case 34:
      return near_mutual_impl<V, 2, 2>(m, tx, ty, qt, n, x, y, from, q, back, out);
  }
  return false;  // no such batch or order (the caller keeps to kWideBatch)
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
