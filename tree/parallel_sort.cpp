#include "tree/parallel_sort.hpp"

#include <algorithm>

#include "tree/threads.hpp"

namespace mlfma2d {
namespace {

constexpr int kTopBits = 11;        // the parallel pass: 2048 buckets (few enough write streams)
constexpr int kDigitBits = 8;       // the passes within a bucket, in cache
constexpr std::size_t kSmall = 32;  // a bucket this small is sorted by insertion

// The position of the highest bit in which any two keys of [lo, hi) differ, plus one (0: all
// keys equal): the digit of the next pass sits just below it.
int differing_bits(const std::uint64_t* key, std::size_t n) {
  std::uint64_t lo = ~0ull, hi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    lo = std::min(lo, key[i]);
    hi = std::max(hi, key[i]);
  }
  const std::uint64_t d = lo ^ hi;
  return d == 0 ? 0 : 64 - __builtin_clzll(d);
}

// Sorts the points [0, n) of the arrays (key, index, x, y) in place, serially: by insertion when
// small, else one 8-bit digit pass (below the highest bit in which the keys differ) into scratch
// and each bucket again. Both keep equal keys in their order (stable).
void sort_range(std::uint64_t* key, std::int64_t* index, double* x, double* y, std::size_t n,
                KeyedPoints* scratch) {
  if (n < 2) return;
  if (n <= kSmall) {
    for (std::size_t i = 1; i < n; ++i) {
      const std::uint64_t k = key[i];
      const std::int64_t ix = index[i];
      const double px = x[i], py = y[i];
      std::size_t j = i;
      for (; j > 0 && key[j - 1] > k; --j) {
        key[j] = key[j - 1];
        index[j] = index[j - 1];
        x[j] = x[j - 1];
        y[j] = y[j - 1];
      }
      key[j] = k;
      index[j] = ix;
      x[j] = px;
      y[j] = py;
    }
    return;
  }
  const int bits = differing_bits(key, n);
  if (bits == 0) return;
  const int shift = std::max(0, bits - kDigitBits);
  const std::uint64_t mask = (std::uint64_t(1) << (bits - shift)) - 1;
  std::size_t start[(1 << kDigitBits) + 1] = {};
  for (std::size_t i = 0; i < n; ++i) ++start[((key[i] >> shift) & mask) + 1];
  for (std::size_t d = 0; d <= mask; ++d) start[d + 1] += start[d];
  KeyedPoints& out = *scratch;
  if (out.key.size() < n) {
    out.key.resize(n);
    out.index.resize(n);
    out.x.resize(n);
    out.y.resize(n);
  }
  std::size_t at[1 << kDigitBits];
  std::copy(start, start + mask + 1, at);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t to = at[(key[i] >> shift) & mask]++;
    out.key[to] = key[i];
    out.index[to] = index[i];
    out.x[to] = x[i];
    out.y[to] = y[i];
  }
  std::copy(out.key.begin(), out.key.begin() + n, key);
  std::copy(out.index.begin(), out.index.begin() + n, index);
  std::copy(out.x.begin(), out.x.begin() + n, x);
  std::copy(out.y.begin(), out.y.begin() + n, y);
  for (std::size_t d = 0; d <= mask; ++d) {
    const std::size_t b = start[d], e = start[d + 1];
    sort_range(key + b, index + b, x + b, y + b, e - b, scratch);
  }
}

}  // namespace

void sort_points(KeyedPoints* p, int threads) {
  const std::size_t n = p->key.size();
  if (n < 2) return;
  const int team = team_size(threads);
  const std::int64_t count = std::int64_t(n);
  // The highest differing bit of all keys (parallel min and max).
  std::uint64_t lo = ~0ull, hi = 0;
#pragma omp parallel for num_threads(team) schedule(static) reduction(min : lo) reduction(max : hi)
  for (std::int64_t i = 0; i < count; ++i) {
    lo = std::min(lo, p->key[i]);
    hi = std::max(hi, p->key[i]);
  }
  if (lo == hi) return;
  const int bits = 64 - __builtin_clzll(lo ^ hi);
  const int shift = std::max(0, bits - kTopBits);
  const std::size_t buckets = std::size_t(1) << (bits - shift);
  const std::uint64_t mask = buckets - 1;

  // One stable digit pass in parallel: per-thread counts of static chunks, then offsets digit by
  // digit and, within a digit, chunk by chunk.
  auto chunk = [&](int c) { return n * std::size_t(c) / std::size_t(team); };
  std::vector<std::size_t> count_of(std::size_t(team) * buckets, 0);
#pragma omp parallel for num_threads(team) schedule(static, 1)
  for (int c = 0; c < team; ++c) {
    std::size_t* h = &count_of[std::size_t(c) * buckets];
    for (std::size_t i = chunk(c); i < chunk(c + 1); ++i) ++h[(p->key[i] >> shift) & mask];
  }
  std::vector<std::size_t> start(buckets + 1, 0);
  std::size_t sum = 0;
  for (std::size_t d = 0; d < buckets; ++d) {
    start[d] = sum;
    for (int c = 0; c < team; ++c) {
      std::size_t& h = count_of[std::size_t(c) * buckets + d];
      const std::size_t v = h;
      h = sum;
      sum += v;
    }
  }
  start[buckets] = n;
  KeyedPoints out;
  out.key.resize(n);
  out.index.resize(n);
  out.x.resize(n);
  out.y.resize(n);
#pragma omp parallel for num_threads(team) schedule(static, 1)
  for (int c = 0; c < team; ++c) {
    std::size_t* h = &count_of[std::size_t(c) * buckets];
    for (std::size_t i = chunk(c); i < chunk(c + 1); ++i) {
      const std::size_t to = h[(p->key[i] >> shift) & mask]++;
      out.key[to] = p->key[i];
      out.index[to] = p->index[i];
      out.x[to] = p->x[i];
      out.y[to] = p->y[i];
    }
  }
  // Each bucket on its own, in parallel.
#pragma omp parallel num_threads(team)
  {
    KeyedPoints scratch;
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t d = 0; d < std::int64_t(buckets); ++d) {
      const std::size_t b = start[d], e = start[d + 1];
      sort_range(out.key.data() + b, out.index.data() + b, out.x.data() + b, out.y.data() + b,
                 e - b, &scratch);
    }
  }
  *p = std::move(out);
}

}  // namespace mlfma2d
