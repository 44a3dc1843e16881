// One evaluation's strengths and outputs (solver/strengths.hpp).
#include "solver/strengths.hpp"

#include <cstdint>
#include <string>

#include "runtime/threads.hpp"

namespace mlfma2d {

void check_strengths(const SourceKinds& kinds, std::size_t n, const Densities& in,
                     const char* who) {
  const int nd = kinds.densities;
  if (kinds.charges) {
    if (!in.charges) throw InvalidInput(std::string(who) + "no charges given");
    check_finite_rows(in.charges, nd, n, "charge");
  }
  if (!kinds.dipoles) return;
  if (!in.dipole_strengths || !in.dipole_vectors)
    throw InvalidInput(std::string(who) + "no dipole strengths or orientations given");
  check_finite_rows(in.dipole_strengths, nd, n, "dipole strength");
  // Orientations: 2 x n (x row, then y row) or nd x 2 x n.
  const int sets = in.vectors_per_density ? nd : 1;
  for (int d = 0; d < sets; ++d)
    for (int c = 0; c < 2; ++c)
      for (std::size_t j = 0; j < n; ++j)
        if (!std::isfinite(in.dipole_vectors[(std::size_t(2 * d + c)) * n + j]))
          throw InvalidInput(
              "dipole orientation " + std::string(c ? "y" : "x") + " of source " +
              std::to_string(j) +
              (in.vectors_per_density ? " (density " + std::to_string(d) + ")" : std::string()) +
              " is not finite");
}

void check_outputs(bool field, bool hessian, const Outputs& out, const char* who) {
  if (!out.potential) throw InvalidInput(std::string(who) + "no potential output given");
  if (field && (!out.field_x || !out.field_y))
    throw InvalidInput(std::string(who) + "field requested but no field output given");
  if (hessian && (!out.hessian_xx || !out.hessian_xy || !out.hessian_yy))
    throw InvalidInput(std::string(who) + "Hessian requested but no Hessian output given");
}

Strengths EvaluationArrays::caller_order(const PreparedPoints& points, const SourceKinds& kinds,
                                         const Densities& in, int threads, double* mx_to,
                                         double* my_to) {
  const int nd = kinds.densities;
  Strengths s;
  if (kinds.charges) s.q = merged_rows(points, in.charges, nd, &q_merged_, threads);
  if (kinds.dipoles) {
    double *mx = mx_to, *my = my_to;
    if (mx && my && !points.merged()) {
      dipole_moments(points, in.dipole_strengths, in.dipole_vectors, in.vectors_per_density, nd, mx,
                     my, threads);
    } else {  // arrays of its own (merged: summed into others)
      dipole_moments(points, in.dipole_strengths, in.dipole_vectors, in.vectors_per_density, nd,
                     &mom_x_, &mom_y_, threads);
      mx = mom_x_.data();
      my = mom_y_.data();
    }
    s.mx = merged_rows(points, mx, nd, &mx_merged_, threads);
    s.my = merged_rows(points, my, nd, &my_merged_, threads);
  }
  return s;
}

FarSources EvaluationArrays::tree_order(const Tree& tree, const Strengths& s, int nd, int threads) {
  const std::size_t ns = tree.n_sources(), all = std::size_t(nd) * ns;
  const BlockedPermutation& by = tree.self ? targets_ : sources_;
  auto gather = [&](const double* from, Array<double>* to) {
    to->resize(all);
    double* t = to->data();
    if (by.size() == ns) {
      for (int d = 0; d < nd; ++d) by.gather(from + d * ns, t + d * ns, threads);
      return t;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t k = 0; k < all; ++k) {
      const std::size_t d = k / ns, j = k - d * ns;
      t[k] = from[d * ns + std::size_t(tree.src_index[j])];
    }
    return t;
  };
  FarSources f;
  if (s.q) f.q = gather(s.q, &q_);
  if (s.mx) {
    f.mx = gather(s.mx, &mx_);
    f.my = gather(s.my, &my_);
  }
  return f;
}

FarOutputs EvaluationArrays::far_outputs(const Tree& tree, int nd, bool field, bool hessian,
                                         int threads) {
  const std::size_t nt = tree.n_targets(), all = std::size_t(nd) * nt;
  // L2P sets the outputs of every leaf on levels >= 3 (its first writer): the targets of the
  // leaves above level 3 alone are zeroed here (at nd = 8 and 1e6 points the whole arrays were
  // 64 MB a kind written once more per evaluation).
  const std::int64_t leaves = std::int64_t(tree.leaves.size());
  auto zeroed = [&](Array<double>* a) {
    a->resize(all);
    double* o = a->data();
#pragma omp parallel for num_threads(team_size(threads, leaves)) schedule(static)
    for (std::int64_t i = 0; i < leaves; ++i) {
      const BoxRef r = tree.leaves[std::size_t(i)];
      if (r.level >= 3) continue;
      const Level& lv = tree.at(r);
      for (int d = 0; d < nd; ++d)
        std::fill(o + std::size_t(d) * nt + std::size_t(lv.tgt_begin[r.box]),
                  o + std::size_t(d) * nt + std::size_t(lv.tgt_end[r.box]), 0.0);
    }
    return o;
  };
  staged_now_ = false;
  FarOutputs out;
  out.phi = zeroed(&phi_);
  if (field) {
    out.ex = zeroed(&ex_);
    out.ey = zeroed(&ey_);
  }
  if (hessian) {
    out.hxx = zeroed(&hxx_);
    out.hxy = zeroed(&hxy_);
  }
  return out;
}

void EvaluationArrays::index_points(const Tree& tree, bool sources, int threads) {
  const std::size_t nt = tree.n_targets(), ns = tree.n_sources();
  targets_ = sources_ = BlockedPermutation();
  if (nt >= (std::size_t(1) << 32) || ns >= (std::size_t(1) << 32)) return;
  targets_ = BlockedPermutation(tree.tgt_index(), nt, threads);
  if (sources && !tree.self) sources_ = BlockedPermutation(tree.src_index.data(), ns, threads);
}

void EvaluationArrays::to_caller_order(const Tree& tree, int nd, const double* f, double* o,
                                       const double* plus, int threads) const {
  const std::size_t nt = tree.n_targets(), all = std::size_t(nd) * nt;
  if (targets_.size() == nt) {
    for (int d = 0; d < nd; ++d)
      targets_.scatter(f + d * nt, o + d * nt, plus ? plus + d * nt : nullptr, threads);
    return;
  }
  const std::int64_t* to = tree.tgt_index();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t k = 0; k < all; ++k) {
    const std::size_t d = k / nt, at = d * nt + std::size_t(to[k - d * nt]);
    o[at] = plus ? plus[at] + f[k] : f[k];
  }
}

void EvaluationArrays::stage_far_field(const Tree& tree, int nd, bool field, bool hessian,
                                       int threads) {
  const std::size_t all = std::size_t(nd) * tree.n_targets();
  const Array<double>* from[5] = {&phi_, &ex_, &ey_, &hxx_, &hxy_};
  const bool wanted[5] = {true, field, field, hessian, hessian};
  for (int c = 0; c < 5; ++c) {
    if (!wanted[c]) continue;
    staged_[c].resize(all);
    to_caller_order(tree, nd, from[c]->data(), staged_[c].data(), nullptr, threads);
  }
  staged_now_ = true;
}

void EvaluationArrays::add_far_field(const Tree& tree, int nd, bool field, bool hessian,
                                     const Outputs& out, const double* const* near,
                                     int threads) const {
  const std::size_t all = std::size_t(nd) * tree.n_targets();
  double* outputs[5] = {out.potential, out.field_x, out.field_y, out.hessian_xx, out.hessian_xy};
  const Array<double>* from[5] = {&phi_, &ex_, &ey_, &hxx_, &hxy_};
  const bool wanted[5] = {true, field, field, hessian, hessian};
  for (int c = 0; c < 5; ++c) {
    if (!wanted[c]) continue;
    double* o = outputs[c];
    const double* n = near ? near[c] : nullptr;
    if (!staged_now_) {
      to_caller_order(tree, nd, from[c]->data(), o, n ? n : o, threads);
      continue;
    }
    const double* f = staged_[c].data();
    if (n) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
      for (std::size_t k = 0; k < all; ++k) o[k] = n[k] + f[k];
    } else {
#pragma omp parallel for simd num_threads(threads) schedule(static)
      for (std::size_t k = 0; k < all; ++k) o[k] += f[k];
    }
  }
}

void finish_outputs(const PreparedPoints& points, const Strengths& s, int nd, bool field,
                    bool hessian, const Outputs& out, int threads) {
  const std::size_t ns = points.sources(), nt = points.caller_targets;
  for (int d = 0; d < nd; ++d) {
    const std::size_t o = std::size_t(d) * nt;
    auto at = [&](double* a, bool wanted) { return wanted && a ? a + o : nullptr; };
    unscale(points, s.q ? s.q + d * ns : nullptr, out.potential + o, at(out.field_x, field),
            at(out.field_y, field), at(out.hessian_xx, hessian), at(out.hessian_xy, hessian),
            threads);
  }
  if (hessian) {
    const std::size_t all = std::size_t(nd) * nt;
#pragma omp parallel for num_threads(team_size(threads)) schedule(static)
    for (std::size_t i = 0; i < all; ++i) out.hessian_yy[i] = -out.hessian_xx[i];
  }
}

}  // namespace mlfma2d
