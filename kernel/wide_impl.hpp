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

// V = R S in tiles of kRowVectors x W rows and kWideCols columns held in registers.
template <class V, int kRowVectors>
void gemm_impl(int n, int rows, int cols, const double* R, const double* S, double* Vout) {
  constexpr int kRows = kRowVectors * V::W;
  constexpr int kCols = mlfma2d::kWideCols;
  for (int j0 = 0; j0 < cols; j0 += kCols) {
    const double* s = S + static_cast<long>(j0) * n;
    for (int i0 = 0; i0 < rows; i0 += kRows) {
      typename V::reg acc[kRowVectors][kCols];
      for (int r = 0; r < kRowVectors; ++r)
        for (int c = 0; c < kCols; ++c) acc[r][c] = V::zero();
      const double* a = R + i0;
      for (int k = 0; k < n; ++k, a += rows) {
        typename V::reg col[kRowVectors];
        for (int r = 0; r < kRowVectors; ++r) col[r] = V::load(a + r * V::W);
        for (int c = 0; c < kCols; ++c) {
          const typename V::reg b = V::set1(s[static_cast<long>(c) * n + k]);
          for (int r = 0; r < kRowVectors; ++r) acc[r][c] = V::fma(col[r], b, acc[r][c]);
        }
      }
      for (int c = 0; c < kCols; ++c) {
        double* out = Vout + static_cast<long>(j0 + c) * rows + i0;
        for (int r = 0; r < kRowVectors; ++r) V::store(out + r * V::W, acc[r][c]);
      }
    }
  }
}

// The near field's shared terms (WideKernels::near_terms).
template <class V>
bool near_terms_impl(int n, const double* x, const double* y, double tx, double ty, bool want_log,
                     bool want_g, double* hl, double* gx, double* gy) {
  const typename V::reg X = V::set1(tx), Y = V::set1(ty), one = V::set1(1.0), half = V::set1(0.5),
                        zero = V::zero(), min = V::set1(mlfma2d::kPairMinR2);
  bool tiny = false;
  for (int j = 0; j < n; j += V::W) {
    const typename V::reg dx = V::sub(X, V::load(x + j)), dy = V::sub(Y, V::load(y + j));
    const typename V::reg r2 = V::fma(dx, dx, V::mul(dy, dy));
    // r2 below the smallest normal double: 1 instead (log 1 = 0, and g = 0 where dx = dy = 0,
    // the skipped pair); a lane there with dx or dy not zero is a tiny-distance pair.
    const typename V::mask small = V::lt(r2, min);
    tiny = tiny || V::any(V::mand(small, V::mor(V::ne(dx, zero), V::ne(dy, zero))));
    const typename V::reg r2m = V::blend(small, one, r2);
    if (want_log) V::store(hl + j, V::mul(half, V::log(r2m)));
    if (want_g) {
      const typename V::reg inv = V::div(one, r2m);
      V::store(gx + j, V::mul(dx, inv));
      V::store(gy + j, V::mul(V::sub(zero, dy), inv));
    }
  }
  return !tiny;
}

// One density of charges, potential and field fused (WideKernels::near_charges): everything in
// registers, two independent accumulators each.
template <class V>
bool near_charges_impl(int n, const double* x, const double* y, const double* q, double tx,
                       double ty, bool field, double* out) {
  typedef typename V::reg reg;
  const reg X = V::set1(tx), Y = V::set1(ty), one = V::set1(1.0), zero = V::zero(),
            min = V::set1(mlfma2d::kPairMinR2);
  reg phi = V::zero(), ex = V::zero(), ey = V::zero();
  typename V::mask tiny = V::lt(zero, zero);  // none
  for (int j = 0; j < n; j += V::W) {
    const reg dx = V::sub(X, V::load(x + j)), dy = V::sub(Y, V::load(y + j));
    const reg r2 = V::fma(dx, dx, V::mul(dy, dy));
    const typename V::mask small = V::lt(r2, min);
    tiny = V::mor(tiny, V::mand(small, V::mor(V::ne(dx, zero), V::ne(dy, zero))));
    const reg r2m = V::blend(small, one, r2), qj = V::load(q + j);
    phi = V::fma(qj, V::log(r2m), phi);
    if (field) {  // E += -q (dx, dy) / r2
      const reg s = V::div(qj, r2m);
      ex = V::sub(ex, V::mul(s, dx));
      ey = V::sub(ey, V::mul(s, dy));
    }
  }
  if (V::any(tiny)) return false;
  out[0] = 0.5 * V::hsum(phi);
  if (field) {
    out[1] = V::hsum(ex);
    out[2] = V::hsum(ey);
  }
  return true;
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
