#pragma once
// The natural log of many doubles at once: with AVX2, glibc's 4-wide vector log (libmvec, at
// most 4 ulp); otherwise std::log. Every log of a sum over points on the CPU goes through here:
// the near field's pair sums (nearfield/cpu) and the far field's P2L and M2P, where a scalar log
// per (point, box) kept the rest of the loop from being vectorised.
#include <cmath>
#include <cstddef>

#ifdef __AVX2__
#include <immintrin.h>
extern "C" __m256d _ZGVdN4v_log(__m256d);  // glibc libmvec: 4-wide double log
#endif

namespace mlfma2d {

#ifdef __AVX2__
/// \brief log of 4 lanes (glibc libmvec).
inline __m256d log4(__m256d v) {
  return _ZGVdN4v_log(v);
}
#endif

/// \brief v[i] = log(v[i]) for i < n.
inline void log_in_place(double* v, std::size_t n) {
  std::size_t i = 0;
#ifdef __AVX2__
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(v + i, log4(_mm256_loadu_pd(v + i)));
#endif
  for (; i < n; ++i) v[i] = std::log(v[i]);
}

}  // namespace mlfma2d
