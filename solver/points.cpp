#include "solver/points.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include "mlfma2d/errors.hpp"
#include "runtime/threads.hpp"

namespace mlfma2d {
namespace {

// Extents up to 2^500 keep r^2 <= 2 * 2^1000, far below the largest double (2^1024).
constexpr int kScaleAbove = 500;

std::string point_text(double x, double y) {
  std::ostringstream m;
  m.precision(17);
  m << "(" << x << ", " << y << ")";
  return m.str();
}

// Bit pattern of a point, for hashing exact coordinates (+0 and -0 are one point: x == y).
struct PointKey {
  double x, y;
  bool operator==(const PointKey& o) const { return x == o.x && y == o.y; }
};
struct PointHash {
  std::size_t operator()(const PointKey& p) const {
    const double x = p.x == 0 ? 0.0 : p.x, y = p.y == 0 ? 0.0 : p.y;  // -0 hashes as +0
    std::uint64_t a, b;
    std::memcpy(&a, &x, 8);
    std::memcpy(&b, &y, 8);
    return std::size_t(a * 0x9E3779B97F4A7C15ull ^ (b + 0x7F4A7C159E3779B9ull + (a << 6)));
  }
};

}  // namespace

namespace {
void check_lengths(const std::vector<double>& x, const std::vector<double>& y,
                   const std::vector<double>& tx, const std::vector<double>& ty) {
  if (x.size() != y.size())
    throw InvalidInput("source x and y have different lengths (" + std::to_string(x.size()) +
                       " and " + std::to_string(y.size()) + ")");
  if (tx.size() != ty.size())
    throw InvalidInput("target x and y have different lengths (" + std::to_string(tx.size()) +
                       " and " + std::to_string(ty.size()) + ")");
}
}  // namespace

void check_point_arrays(const std::vector<double>& x, const std::vector<double>& y,
                        const std::vector<double>& tx, const std::vector<double>& ty) {
  check_lengths(x, y, tx, ty);
  check_finite_points(x, y, "source");
  check_finite_points(tx, ty, "target");
}

void check_points(const std::vector<double>& x, const std::vector<double>& y,
                  const std::vector<double>& tx, const std::vector<double>& ty) {
  check_lengths(x, y, tx, ty);
  if (x.empty()) throw InvalidInput("no sources: at least one source point is needed");
  check_finite_points(x, y, "source");
  check_finite_points(tx, ty, "target");
}

void check_finite_points(const std::vector<double>& x, const std::vector<double>& y,
                         const char* what) {
  // In parallel whether any is not finite; then the first such point, for the message.
  const std::int64_t n = std::int64_t(x.size());
  bool bad = false;
#pragma omp parallel for num_threads(team_size(0, n)) schedule(static) reduction(|| : bad)
  for (std::int64_t i = 0; i < n; ++i) bad = bad || !(std::isfinite(x[i]) && std::isfinite(y[i]));
  if (!bad) return;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isfinite(x[i]) && std::isfinite(y[i])) continue;
    std::ostringstream m;
    m << what << " " << i << " has a non-finite coordinate (" << x[i] << ", " << y[i] << ")";
    throw InvalidInput(m.str());
  }
}

void check_finite_charges(const double* q, std::size_t n) {
  check_finite_rows(q, 1, n, "charge");
}

void check_finite_rows(const double* v, int nd, std::size_t n, const char* what) {
  for (int d = 0; d < nd; ++d)
    for (std::size_t j = 0; j < n; ++j)
      if (!std::isfinite(v[std::size_t(d) * n + j]))
        throw InvalidInput(std::string(what) + " " + std::to_string(j) +
                           (nd > 1 ? " of density " + std::to_string(d) : std::string()) +
                           " is not finite");
}

Tree build_tree(const std::vector<double>& x, const std::vector<double>& y,
                const std::vector<double>& tx, const std::vector<double>& ty, int ct,
                int level_offset, std::string* warning, int threads, TreeKind kind) {
  if (ct < 1) throw InvalidInput("clustering threshold CT must be >= 1, got " + std::to_string(ct));
  check_points(x, y, tx, ty);
  TreePoints pts = sort_tree_points(PointsRef{x.data(), y.data(), x.size()},
                                    PointsRef{tx.data(), ty.data(), tx.size()}, threads);
  Tree tree = grow_tree(pts, ct, level_offset, kind, warning, threads);
  attach_points(&tree, std::move(pts));
  return tree;
}

double PreparedPoints::log_scale() const {
  return scale_exponent * std::log(2.0);
}
double PreparedPoints::scale() const {
  return std::ldexp(1.0, scale_exponent);
}

bool extent_needs_scaling(double extent) {
  return !(std::isfinite(extent) && extent <= std::ldexp(1.0, kScaleAbove));
}

PreparedPoints prepare_points(const std::vector<double>& x, const std::vector<double>& y,
                              const std::vector<double>& tx, const std::vector<double>& ty,
                              int threads) {
  PreparedPoints p;
  p.self = tx.empty();
  p.caller_sources = x.size();
  p.caller_targets = p.self ? x.size() : tx.size();
  // The largest coordinate and the extent; both finite for finite coordinates, except the
  // extent, which may overflow (points near +-1e308).
  double lo0 = INFINITY, lo1 = INFINITY, hi0 = -INFINITY, hi1 = -INFINITY;
  for (int set = 0; set < 2; ++set) {
    const std::vector<double>& px = set ? tx : x;
    const std::vector<double>& py = set ? ty : y;
    const std::int64_t n = std::int64_t(px.size());
#pragma omp parallel for num_threads(team_size(threads, n)) schedule(static) reduction(min         \
                                                                                       : lo0, lo1) \
    reduction(max                                                                                  \
              : hi0, hi1)
    for (std::int64_t i = 0; i < n; ++i) {
      lo0 = std::min(lo0, px[i]);
      hi0 = std::max(hi0, px[i]);
      lo1 = std::min(lo1, py[i]);
      hi1 = std::max(hi1, py[i]);
    }
  }
  const double extent = std::max(hi0 - lo0, hi1 - lo1);
  p.n_sources = x.size();
  if (!extent_needs_scaling(extent)) {
    p.src = {x.data(), y.data(), x.size()};
    p.tgt = {tx.data(), ty.data(), tx.size()};
    return p;
  }
  const double most = std::max({std::abs(lo0), std::abs(hi0), std::abs(lo1), std::abs(hi1)});
  // most < 2^e: the scaled points lie in (-1, 1). At most 2^1023, the largest power of two a
  // double holds (coordinates near +-1e308 give e = 1024): the scale stays a number, and the
  // points lie in (-2, 2), where r^2 cannot overflow either.
  std::frexp(most, &p.scale_exponent);
  p.scale_exponent = std::min(p.scale_exponent, std::numeric_limits<double>::max_exponent - 1);
  auto scaled = [&](const std::vector<double>& v) {
    Array<double> out(v.size());
    const std::int64_t n = std::int64_t(v.size());
#pragma omp parallel for num_threads(team_size(threads, n)) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) out[i] = std::ldexp(v[i], -p.scale_exponent);
    return out;
  };
  p.sx = scaled(x);
  p.sy = scaled(y);
  p.tx = scaled(tx);
  p.ty = scaled(ty);
  p.src = {p.sx.data(), p.sy.data(), p.sx.size()};
  p.tgt = {p.tx.data(), p.ty.data(), p.tx.size()};
  return p;
}

void PreparedPoints::release_coordinates() {
  src = tgt = PointsRef{};
  sx = sy = tx = ty = Array<double>();
}

// Two caller points that scaling made one: the potential would depend on digits doubles lack.
[[noreturn]] void collapsed(const char* a, std::size_t i, double xi, double yi, const char* b,
                            std::size_t j, double xj, double yj, int exponent) {
  std::ostringstream m;
  m << a << " " << i << " " << point_text(xi, yi) << " and " << b << " " << j << " "
    << point_text(xj, yj) << " are different points but one at the resolution of doubles on the "
    << "scale of the whole set (its coordinates are scaled by 2^-" << exponent
    << " so that r^2 cannot overflow): the potential between them cannot be computed";
  throw InvalidInput(m.str());
}

bool merge_coincident_sources(const TreePoints& sorted, const std::vector<double>& x,
                              const std::vector<double>& y, PreparedPoints* p) {
  const auto& sx = sorted.sources.x;
  const auto& sy = sorted.sources.y;
  const auto& index = sorted.sources.index;
  // Within each shared cell, sources with equal coordinates (sorted by (x, y), then caller
  // index): every group gets its smallest caller index as representative.
  const std::int64_t ns = std::int64_t(p->n_sources);
  std::vector<std::int64_t> rep;  // caller source -> its representative (filled lazily)
  std::vector<std::int64_t> order;
  for (std::size_t r = 0; r < sorted.shared_cells.size(); r += 2) {
    const std::int64_t b = sorted.shared_cells[r], e = sorted.shared_cells[r + 1];
    order.resize(e - b);
    std::iota(order.begin(), order.end(), b);
    std::sort(order.begin(), order.end(), [&](std::int64_t i, std::int64_t j) {
      if (sx[i] != sx[j]) return sx[i] < sx[j];
      if (sy[i] != sy[j]) return sy[i] < sy[j];
      return index[i] < index[j];
    });
    for (std::size_t k = 1; k < order.size(); ++k) {
      const std::int64_t a = order[k - 1], c = order[k];
      if (sx[a] != sx[c] || sy[a] != sy[c]) continue;
      const std::int64_t ja = index[a], jc = index[c];
      if (x[ja] != x[jc] || y[ja] != y[jc])
        collapsed("source", ja, x[ja], y[ja], "source", jc, x[jc], y[jc], p->scale_exponent);
      if (rep.empty()) {
        rep.resize(ns);
        std::iota(rep.begin(), rep.end(), 0);
      }
      rep[index[c]] = rep[index[a]];
    }
  }
  if (rep.empty()) return false;
  // Tree sources in the order of their representatives; each one's caller sources (CSR).
  std::vector<std::int64_t> unique_of(ns, -1), count;
  Array<double> ux, uy;
  for (std::int64_t j = 0; j < ns; ++j) {
    if (rep[j] != j) continue;
    unique_of[j] = std::int64_t(ux.size());
    ux.push_back(p->src.x[j]);
    uy.push_back(p->src.y[j]);
  }
  const std::int64_t nu = std::int64_t(ux.size());
  p->member_begin.assign(nu + 1, 0);
  for (std::int64_t j = 0; j < ns; ++j) ++p->member_begin[unique_of[rep[j]] + 1];
  for (std::int64_t u = 0; u < nu; ++u) p->member_begin[u + 1] += p->member_begin[u];
  p->member.resize(ns);
  std::vector<std::int64_t> at(p->member_begin.begin(), p->member_begin.end() - 1);
  for (std::int64_t j = 0; j < ns; ++j) p->member[at[unique_of[rep[j]]]++] = j;
  // The targets: all of them (in self-evaluation the caller's sources, each still a target).
  if (p->self) {
    if (p->sx.empty()) {  // views of the caller's sources stay the targets' views
      p->tgt = p->src;
    } else {
      p->tx = std::move(p->sx);  // a move keeps the buffer: the views stay valid
      p->ty = std::move(p->sy);
      p->tgt = {p->tx.data(), p->ty.data(), p->tx.size()};
    }
  }
  p->sx = std::move(ux);
  p->sy = std::move(uy);
  p->src = {p->sx.data(), p->sy.data(), p->sx.size()};
  p->n_sources = p->sx.size();
  return true;
}

void find_coincident_sources(const std::vector<double>& x, const std::vector<double>& y,
                             const std::vector<double>& tx, const std::vector<double>& ty,
                             PreparedPoints* p) {
  const bool targets_are_sources = p->tgt.n == 0;
  const std::size_t nt = targets_are_sources ? p->src.n : p->tgt.n;
  p->coincident.assign(nt, -1);
  if (targets_are_sources) {  // self, nothing merged: each target is its own source
    std::iota(p->coincident.begin(), p->coincident.end(), 0);
    return;
  }
  std::unordered_map<PointKey, std::int64_t, PointHash> where;
  where.reserve(p->src.n);
  for (std::size_t u = 0; u < p->src.n; ++u) where.emplace(PointKey{p->src.x[u], p->src.y[u]}, u);
  for (std::size_t i = 0; i < nt; ++i) {
    const auto it = where.find(PointKey{p->tgt.x[i], p->tgt.y[i]});
    if (it == where.end()) continue;
    p->coincident[i] = it->second;
    // The caller's target i and a caller source of tree source u (its first member, or u).
    const std::size_t j =
        p->merged() ? std::size_t(p->member[p->member_begin[it->second]]) : std::size_t(it->second);
    const double cx = p->self ? x[i] : tx[i], cy = p->self ? y[i] : ty[i];
    if (cx != x[j] || cy != y[j])
      collapsed("target", i, cx, cy, "source", j, x[j], y[j], p->scale_exponent);
  }
}

const double* merged_rows(const PreparedPoints& p, const double* v, int nd,
                          std::vector<double>* out, int threads) {
  if (!p.merged()) return v;
  const std::int64_t nu = std::int64_t(p.sources()), n = std::int64_t(p.caller_sources);
  out->resize(std::size_t(nd) * std::size_t(nu));
#pragma omp parallel for num_threads(team_size(threads)) schedule(static) collapse(2)
  for (int d = 0; d < nd; ++d) {
    for (std::int64_t u = 0; u < nu; ++u) {
      double s = 0;
      for (std::int64_t k = p.member_begin[u]; k < p.member_begin[u + 1]; ++k)
        s += v[d * n + p.member[k]];
      (*out)[std::size_t(d * nu + u)] = s;
    }
  }
  return out->data();
}

void dipole_moments(const PreparedPoints& p, const double* strength, const double* vectors,
                    bool per_density, int nd, double* mx, double* my, int threads) {
  const std::int64_t n = std::int64_t(p.caller_sources);
  const double inv_s = std::ldexp(1.0, -p.scale_exponent);
#pragma omp parallel for num_threads(team_size(threads)) schedule(static) collapse(2)
  for (int d = 0; d < nd; ++d) {
    for (std::int64_t j = 0; j < n; ++j) {
      const double* v = vectors + (per_density ? 2 * d * n : 0);
      const double ds = strength[d * n + j] * inv_s;
      mx[d * n + j] = ds * v[j];
      my[d * n + j] = ds * v[n + j];
    }
  }
}

void dipole_moments(const PreparedPoints& p, const double* strength, const double* vectors,
                    bool per_density, int nd, std::vector<double>* mx, std::vector<double>* my,
                    int threads) {
  mx->resize(std::size_t(nd) * p.caller_sources);
  my->resize(mx->size());
  dipole_moments(p, strength, vectors, per_density, nd, mx->data(), my->data(), threads);
}

void unscale(const PreparedPoints& p, const double* q, double* potential, double* fx, double* fy,
             double* hxx, double* hxy, int threads) {
  if (!p.scaled()) return;
  const std::int64_t ns = std::int64_t(p.sources()), nt = std::int64_t(p.coincident.size());
  double total = 0;
  if (q)
    for (std::int64_t j = 0; j < ns; ++j) total += q[j];
  const double log_s = p.log_scale(), inv_s = std::ldexp(1.0, -p.scale_exponent);
#pragma omp parallel for num_threads(team_size(threads)) schedule(static)
  for (std::int64_t i = 0; i < nt; ++i) {
    const std::int64_t c = p.coincident[i];
    if (q) potential[i] += log_s * (total - (c >= 0 ? q[c] : 0.0));
    if (fx) {
      fx[i] *= inv_s;
      fy[i] *= inv_s;
    }
    if (hxx) {  // twice: 1/S^2 alone may underflow
      hxx[i] = hxx[i] * inv_s * inv_s;
      hxy[i] = hxy[i] * inv_s * inv_s;
    }
  }
}

}  // namespace mlfma2d
