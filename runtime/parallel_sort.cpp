#include "runtime/parallel_sort.hpp"

#include <algorithm>

#include "runtime/threads.hpp"

namespace mlfma2d {
namespace {

constexpr int kTopBits = 11;        // the parallel pass: 2048 buckets (few enough write streams)
constexpr int kDigitBits = 8;       // the passes within a bucket, in cache
constexpr std::size_t kSmall = 32;  // a bucket this small is sorted by insertion

// A point while it is sorted: one record, so that the scatter of a digit pass writes one stream
// per bucket (four parallel arrays made four, and 8192 streams thrash the TLB and the caches).
struct Record {
  std::uint64_t key;
  std::int64_t index;
  double x, y;
};

// The position of the highest bit in which any two keys of [0, n) differ, plus one (0: all keys
// equal): the digit of the next pass sits just below it.
int differing_bits(const Record* r, std::size_t n) {
  std::uint64_t lo = ~0ull, hi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    lo = std::min(lo, r[i].key);
    hi = std::max(hi, r[i].key);
  }
  const std::uint64_t d = lo ^ hi;
  return d == 0 ? 0 : 64 - __builtin_clzll(d);
}

// Sorts the records [0, n) in place, serially: by insertion when small, else one 8-bit digit pass
// (below the highest bit in which the keys differ) into scratch and each bucket again. Both keep
// equal keys in their order (stable).
void sort_range(Record* r, std::size_t n, Array<Record>* scratch) {
  if (n < 2) return;
  if (n <= kSmall) {
    for (std::size_t i = 1; i < n; ++i) {
      const Record v = r[i];
      std::size_t j = i;
      for (; j > 0 && r[j - 1].key > v.key; --j) r[j] = r[j - 1];
      r[j] = v;
    }
    return;
  }
  const int bits = differing_bits(r, n);
  if (bits == 0) return;
  const int shift = std::max(0, bits - kDigitBits);
  const std::uint64_t mask = (std::uint64_t(1) << (bits - shift)) - 1;
  std::size_t start[(1 << kDigitBits) + 1] = {};
  for (std::size_t i = 0; i < n; ++i) ++start[((r[i].key >> shift) & mask) + 1];
  for (std::size_t d = 0; d <= mask; ++d) start[d + 1] += start[d];
  if (scratch->size() < n) scratch->resize(n);
  Record* out = scratch->data();
  std::size_t at[1 << kDigitBits];
  std::copy(start, start + mask + 1, at);
  for (std::size_t i = 0; i < n; ++i) out[at[(r[i].key >> shift) & mask]++] = r[i];
  std::copy(out, out + n, r);
  for (std::size_t d = 0; d <= mask; ++d)
    sort_range(r + start[d], start[d + 1] - start[d], scratch);
}

}  // namespace

KeyedPoints sort_points(Array<std::uint64_t> keys, const double* x, const double* y, int threads) {
  const std::size_t n = keys.size();
  const int team = team_size(threads);
  const std::int64_t count = std::int64_t(n);
  KeyedPoints p;
  p.index.resize(n);
  p.x.resize(n);
  p.y.resize(n);
  // The highest differing bit of all keys (parallel min and max).
  std::uint64_t lo = ~0ull, hi = 0;
#pragma omp parallel for num_threads(team) schedule(static) reduction(min : lo) reduction(max : hi)
  for (std::int64_t i = 0; i < count; ++i) {
    lo = std::min(lo, keys[i]);
    hi = std::max(hi, keys[i]);
  }
  if (lo >= hi) {  // sorted already: n < 2, or every key equal
#pragma omp parallel for num_threads(team) schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      p.index[i] = i;
      p.x[i] = x[i];
      p.y[i] = y[i];
    }
    p.key = std::move(keys);
    return p;
  }
  const int bits = 64 - __builtin_clzll(lo ^ hi);
  const int shift = std::max(0, bits - kTopBits);
  const std::size_t buckets = std::size_t(1) << (bits - shift);
  const std::uint64_t mask = buckets - 1;

  // One stable digit pass in parallel: per-thread counts of static chunks, then offsets digit by
  // digit and, within a digit, chunk by chunk. The records are made here, from the caller's
  // coordinates, so nothing but the keys is written before the sort.
  auto chunk = [&](int c) { return n * std::size_t(c) / std::size_t(team); };
  std::vector<std::size_t> count_of(std::size_t(team) * buckets, 0);
#pragma omp parallel for num_threads(team) schedule(static, 1)
  for (int c = 0; c < team; ++c) {
    std::size_t* h = &count_of[std::size_t(c) * buckets];
    for (std::size_t i = chunk(c); i < chunk(c + 1); ++i) ++h[(keys[i] >> shift) & mask];
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
  Array<Record> records(n);
#pragma omp parallel for num_threads(team) schedule(static, 1)
  for (int c = 0; c < team; ++c) {
    std::size_t* h = &count_of[std::size_t(c) * buckets];
    for (std::size_t i = chunk(c); i < chunk(c + 1); ++i)
      records[h[(keys[i] >> shift) & mask]++] = {keys[i], std::int64_t(i), x[i], y[i]};
  }
  // Each bucket on its own, in parallel, then into the four arrays (the keys' own array reused).
  p.key = std::move(keys);
#pragma omp parallel num_threads(team)
  {
    Array<Record> scratch;
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t d = 0; d < std::int64_t(buckets); ++d) {
      Record* r = records.data() + start[d];
      const std::size_t m = start[d + 1] - start[d];
      sort_range(r, m, &scratch);
      for (std::size_t i = 0; i < m; ++i) {
        const std::size_t to = start[d] + i;
        p.key[to] = r[i].key;
        p.index[to] = r[i].index;
        p.x[to] = r[i].x;
        p.y[to] = r[i].y;
      }
    }
  }
  return p;
}

}  // namespace mlfma2d
