#pragma once
// What the per-evaluation exchanges carry, packed and unpacked: strengths and results as items of
// `kinds x nd` values per point (kinds: charge, dipole x, dipole y; or the outputs), and the
// partial multipoles as nd x (p+1) complex coefficients per box (docs/distributed.md, "One
// evaluation").
#include <cstdint>
#include <vector>

#include "farfield/expansions.hpp"
#include "runtime/threads.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// \brief Some arrays of nd rows of n values each (density d's value for point j at d * n + j),
/// null arrays skipped: the strengths of every kind, or the outputs.
struct Rows {
  std::vector<double*> a;
  int nd = 1;
  std::size_t n = 0;
  int width() const { return int(a.size()) * nd; }  ///< values per point
};

/// Item k of buf (width() values) gets point at(k) of the rows, for k < count.
template <class At>
void gather_items(const Rows& rows, std::size_t count, At at, double* buf, int threads) {
  const int w = rows.width(), nd = rows.nd;
  const std::int64_t c = std::int64_t(count);
#pragma omp parallel for num_threads(team_size(threads, c)) schedule(static)
  for (std::int64_t k = 0; k < c; ++k) {
    const std::size_t j = std::size_t(at(k));
    double* item = buf + std::size_t(k) * std::size_t(w);
    for (std::size_t a = 0; a < rows.a.size(); ++a)
      for (int d = 0; d < nd; ++d) item[a * nd + d] = rows.a[a][std::size_t(d) * rows.n + j];
  }
}

/// Point at(k) of the rows gets item k of buf, for k < count.
template <class At>
void scatter_items(const double* buf, std::size_t count, At at, const Rows& rows, int threads) {
  const int w = rows.width(), nd = rows.nd;
  const std::int64_t c = std::int64_t(count);
#pragma omp parallel for num_threads(team_size(threads, c)) schedule(static)
  for (std::int64_t k = 0; k < c; ++k) {
    const std::size_t j = std::size_t(at(k));
    const double* item = buf + std::size_t(k) * std::size_t(w);
    for (std::size_t a = 0; a < rows.a.size(); ++a)
      for (int d = 0; d < nd; ++d) rows.a[a][std::size_t(d) * rows.n + j] = item[a * nd + d];
  }
}

/// Doubles of one box's multipoles: nd columns of expansion_rows(p) complex coefficients (the
/// p + 1 terms and the zeros that pad a column to whole cache lines: one copy a box).
inline std::size_t multipole_width(int p, int nd) {
  return 2 * std::size_t(expansion_rows(p)) * std::size_t(nd);
}
/// The multipoles of `boxes` into buf, one box after another.
void pack_multipoles(const Expansions& e, const std::vector<BoxRef>& boxes, int p, double* buf);
/// Adds the received multipoles in buf to `boxes`' (sums of every holder's partial multipole).
void add_multipoles(const double* buf, const std::vector<BoxRef>& boxes, int p, Expansions* e);

}  // namespace mlfma2d
