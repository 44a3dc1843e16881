// The wide kernels' code, written once over a vector type V (kernel/wide.hpp). Included by
// kernel/wide_avx2.cpp and kernel/wide_avx512.cpp only, inside an anonymous namespace after
// each defines its V:
//   V::W        doubles per vector
//   V::reg      the register type; V::zero(), V::load(p), V::store(p, r), V::set1(x),
//               V::fma(a, b, c) = a * b + c
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
