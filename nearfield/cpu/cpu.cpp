// The cpu back end, the reference for every other: near leaves in Morton order; for each target of
// a leaf, the sum over the sources of its near list (its source ranges), in tree order. With AVX2
// the sum runs 4 sources at a time through glibc's vector log (libmvec); otherwise scalar.
#include <vector>

#include "kernel/pair.hpp"
#include "kernel/vector_log.hpp"
#include "nearfield/backend.hpp"
#include "runtime/threads.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d {
namespace {

#ifdef __AVX2__
constexpr int kLanes = 4;
#else
constexpr int kLanes = 1;
#endif

// The sources of one leaf's near list copied into contiguous arrays, padded with zero charges to
// a multiple of the SIMD width, so each target's sum is one straight vector loop.
struct E1Sources {
  std::vector<double> x, y, q;
  std::size_t n = 0;

  void gather(const NearFieldProblem& p, const double* charges, std::size_t b) {
    const NearField& near = *p.near;
    n = 0;
    for (std::int64_t k = near.range_begin[b]; k < near.range_begin[b + 1]; ++k) {
      for (std::int64_t j = near.range[2 * k]; j < near.range[2 * k + 1]; ++j)
        push(p.sx[j], p.sy[j], charges[j]);
    }
    while (n % kLanes) push(0.0, 0.0, 0.0);  // q = 0: contributes exactly 0
  }

  void push(double sx, double sy, double sq) {
    if (x.size() <= n) {
      x.resize(2 * n + 64);
      y.resize(2 * n + 64);
      q.resize(2 * n + 64);
    }
    x[n] = sx;
    y[n] = sy;
    q[n++] = sq;
  }

  // phi += sum_j q_j log|x - y_j|  (log_pair, vectorised: r2 == 0 is replaced by 1, whose log
  // and whose field term (dx = dy = 0) are exactly 0 -- the skip rule of pair.hpp)
  void sum(double tx, double ty, double* phi) const;
  void sum_field(double tx, double ty, double* phi, double* ex, double* ey) const;
};

#ifdef __AVX2__
// r2 with every lane below the smallest normal double replaced by 1 (log 1 = 0: skipped). Such
// a lane is a coincident pair (dx = dy = 0, skipped by rule) or, rarely, two points closer than
// about 1.5e-154, whose r2 lost its digits: `tiny` collects the bits of dx | dy of those lanes,
// and a target with any such lane is summed again by the scalar pair.hpp, which scales them.
inline __m256d masked_r2(__m256d dx, __m256d dy, __m256d* tiny) {
  const __m256d r2 = _mm256_fmadd_pd(dx, dx, _mm256_mul_pd(dy, dy));
  const __m256d small = _mm256_cmp_pd(r2, _mm256_set1_pd(kPairMinR2), _CMP_LT_OQ);
  *tiny = _mm256_or_pd(*tiny, _mm256_and_pd(small, _mm256_or_pd(dx, dy)));
  return _mm256_blendv_pd(r2, _mm256_set1_pd(1.0), small);
}

// Whether a lane of `tiny` holds a non-zero dx or dy (-0.0 counts as zero).
inline bool any_tiny(__m256d tiny) {
  return _mm256_movemask_pd(_mm256_cmp_pd(tiny, _mm256_setzero_pd(), _CMP_NEQ_UQ)) != 0;
}

inline double hsum(__m256d v) {
  const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

void E1Sources::sum(double tx, double ty, double* phi) const {
  const __m256d X = _mm256_set1_pd(tx), Y = _mm256_set1_pd(ty);
  __m256d acc = _mm256_setzero_pd(), tiny = acc;
  for (std::size_t j = 0; j < n; j += 4) {
    const __m256d r2 = masked_r2(_mm256_sub_pd(X, _mm256_loadu_pd(&x[j])),
                                 _mm256_sub_pd(Y, _mm256_loadu_pd(&y[j])), &tiny);
    acc = _mm256_fmadd_pd(_mm256_loadu_pd(&q[j]), log4(r2), acc);
  }
  *phi = 0.5 * hsum(acc);
  if (any_tiny(tiny)) {
    double s = 0;
    for (std::size_t j = 0; j < n; ++j) log_pair(tx, ty, x[j], y[j], q[j], &s);
    *phi = s;
  }
}

void E1Sources::sum_field(double tx, double ty, double* phi, double* ex, double* ey) const {
  const __m256d X = _mm256_set1_pd(tx), Y = _mm256_set1_pd(ty);
  __m256d acc = _mm256_setzero_pd(), ax = acc, ay = acc, tiny = acc;
  for (std::size_t j = 0; j < n; j += 4) {
    const __m256d dx = _mm256_sub_pd(X, _mm256_loadu_pd(&x[j]));
    const __m256d dy = _mm256_sub_pd(Y, _mm256_loadu_pd(&y[j]));
    const __m256d r2 = masked_r2(dx, dy, &tiny), qj = _mm256_loadu_pd(&q[j]);
    acc = _mm256_fmadd_pd(qj, log4(r2), acc);
    const __m256d s = _mm256_div_pd(qj, r2);  // E += -q (x - y) / r2
    ax = _mm256_fnmadd_pd(s, dx, ax);
    ay = _mm256_fnmadd_pd(s, dy, ay);
  }
  *phi = 0.5 * hsum(acc);
  *ex = hsum(ax);
  *ey = hsum(ay);
  if (any_tiny(tiny)) {
    double s = 0, sx = 0, sy = 0;
    for (std::size_t j = 0; j < n; ++j) log_pair_field(tx, ty, x[j], y[j], q[j], &s, &sx, &sy);
    *phi = s;
    *ex = sx;
    *ey = sy;
  }
}
#else
void E1Sources::sum(double tx, double ty, double* phi) const {
  double acc = 0;
  for (std::size_t j = 0; j < n; ++j) log_pair(tx, ty, x[j], y[j], q[j], &acc);
  *phi = acc;
}

void E1Sources::sum_field(double tx, double ty, double* phi, double* ex, double* ey) const {
  double acc = 0, ax = 0, ay = 0;
  for (std::size_t j = 0; j < n; ++j) log_pair_field(tx, ty, x[j], y[j], q[j], &acc, &ax, &ay);
  *phi = acc;
  *ex = ax;
  *ey = ay;
}
#endif

class CpuBackend final : public NearFieldBackend {
 private:
  void prepare() override {
    const NearFieldProblem& p = problem();
    q_.resize(p.n_sources);
    phi_.resize(p.n_targets);
    if (p.field) {
      ex_.resize(p.n_targets);
      ey_.resize(p.n_targets);
    }
  }

  void run(const double* q, double* potential, double* fx, double* fy,
           NearFieldTimings* t) override {
    const NearFieldProblem& p = problem();
    const NearField& near = *p.near;
    const int threads = team_size(p.threads);
    // collect: charges into tree order
    timed(&t->collect, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::size_t j = 0; j < q_.size(); ++j) q_[j] = q[p.src_index[j]];
    });
    timed(&t->kernel, [&] {
#pragma omp parallel num_threads(threads)
      {
        E1Sources e1;
#pragma omp for schedule(dynamic, 64)
        for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(near.leaves()); ++b) {
          e1.gather(p, q_.data(), b);
          for (std::int64_t i = near.leaf_tgt[b]; i < near.leaf_tgt[b + 1]; ++i) {
            if (p.field)
              e1.sum_field(p.tx[i], p.ty[i], &phi_[i], &ex_[i], &ey_[i]);
            else
              e1.sum(p.tx[i], p.ty[i], &phi_[i]);
          }
        }
      }
    });
    // return: scatter into the caller's target order
    timed(&t->ret, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::size_t i = 0; i < phi_.size(); ++i) {
        const std::int64_t to = p.tgt_index[i];
        potential[to] = phi_[i];
        if (p.field) {
          fx[to] = ex_[i];
          fy[to] = ey_[i];
        }
      }
    });
  }

  std::vector<double> q_, phi_, ex_, ey_;  // tree order
};

}  // namespace

std::unique_ptr<NearFieldBackend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace mlfma2d
