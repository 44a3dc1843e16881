// One evaluation's strengths and outputs (solver/strengths.hpp).
#include "solver/strengths.hpp"

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
                                         const Densities& in, int threads) {
  const int nd = kinds.densities;
  Strengths s;
  if (kinds.charges) s.q = merged_rows(points, in.charges, nd, &q_merged_, threads);
  if (kinds.dipoles) {
    dipole_moments(points, in.dipole_strengths, in.dipole_vectors, in.vectors_per_density, nd,
                   &mom_x_, &mom_y_, threads);
    s.mx = merged_rows(points, mom_x_.data(), nd, &mx_merged_, threads);
    s.my = merged_rows(points, mom_y_.data(), nd, &my_merged_, threads);
  }
  return s;
}

FarSources EvaluationArrays::tree_order(const Tree& tree, const Strengths& s, int nd, int threads) {
  const std::size_t ns = tree.n_sources(), all = std::size_t(nd) * ns;
  auto gather = [&](const double* from, Array<double>* to) {
    to->resize(all);
    double* t = to->data();
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
  const std::size_t all = std::size_t(nd) * tree.n_targets();
  auto zeroed = [&](Array<double>* a) {
    a->resize(all);
    parallel_fill(a->data(), all, 0.0, threads);
    return a->data();
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

void EvaluationArrays::stage_far_field(const Tree& tree, int nd, bool field, bool hessian,
                                       int threads) {
  const std::size_t nt = tree.n_targets(), all = std::size_t(nd) * nt;
  const std::int64_t* to = tree.tgt_index();
  const Array<double>* from[5] = {&phi_, &ex_, &ey_, &hxx_, &hxy_};
  const bool wanted[5] = {true, field, field, hessian, hessian};
  for (int c = 0; c < 5; ++c) {
    if (!wanted[c]) continue;
    staged_[c].resize(all);
    const double* f = from[c]->data();
    double* t = staged_[c].data();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t k = 0; k < all; ++k) {
      const std::size_t d = k / nt, i = k - d * nt;
      t[d * nt + std::size_t(to[i])] = f[k];
    }
  }
  staged_now_ = true;
}

void EvaluationArrays::add_far_field(const Tree& tree, int nd, bool field, bool hessian,
                                     const Outputs& out, int threads) const {
  const std::size_t nt = tree.n_targets(), all = std::size_t(nd) * nt;
  double* outputs[5] = {out.potential, out.field_x, out.field_y, out.hessian_xx, out.hessian_xy};
  const bool wanted[5] = {true, field, field, hessian, hessian};
  if (staged_now_) {
    for (int c = 0; c < 5; ++c) {
      if (!wanted[c]) continue;
      const double* f = staged_[c].data();
      double* o = outputs[c];
#pragma omp parallel for simd num_threads(threads) schedule(static)
      for (std::size_t k = 0; k < all; ++k) o[k] += f[k];
    }
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t k = 0; k < all; ++k) {
    const std::size_t d = k / nt, i = k - d * nt;
    const std::size_t to = d * nt + std::size_t(tree.tgt_index()[i]);
    out.potential[to] += phi_[k];
    if (field) {
      out.field_x[to] += ex_[k];
      out.field_y[to] += ey_[k];
    }
    if (hessian) {
      out.hessian_xx[to] += hxx_[k];
      out.hessian_xy[to] += hxy_[k];
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
