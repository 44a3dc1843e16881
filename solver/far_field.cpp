#include "solver/far_field.hpp"

#include "runtime/timer.hpp"

namespace mlfma2d {

FarField::FarField(const Tree& tree, const Plan& plan, int p, const FarShape& shape,
                   bool in_tree_order)
    : tree_(tree), plan_(plan), shape_(shape), in_tree_order_(in_tree_order), ops_(p) {}

void FarField::start(const Strengths& s, int team) {
  const std::size_t ns = tree_.n_sources(), nsa = std::size_t(shape_.densities) * ns;
  auto gather = [&](const double* from, Array<double>* to) {
    if (in_tree_order_) return from;
    to->resize(nsa);
    double* t = to->data();
#pragma omp parallel for num_threads(team) schedule(static)
    for (std::size_t k = 0; k < nsa; ++k) {
      const std::size_t d = k / ns, j = k - d * ns;
      t[k] = from[d * ns + std::size_t(tree_.src_index[j])];
    }
    return static_cast<const double*>(t);
  };
  src_ = FarSources{};
  if (s.q) src_.q = gather(s.q, &q_tree_);
  if (s.mx) {
    src_.mx = gather(s.mx, &mx_tree_);
    src_.my = gather(s.my, &my_tree_);
  }
  const std::size_t nta = std::size_t(shape_.densities) * tree_.n_targets();
  auto zeroed = [&](Array<double>* a) {
    a->resize(nta);
    parallel_fill(a->data(), nta, 0.0, team);
    return a->data();
  };
  out_ = FarOutputs{};
  out_.phi = zeroed(&far_phi_);
  if (shape_.field) {
    out_.ex = zeroed(&far_ex_);
    out_.ey = zeroed(&far_ey_);
  }
  if (shape_.hessian) {
    out_.hxx = zeroed(&far_hxx_);
    out_.hxy = zeroed(&far_hxy_);
  }
  exp_.reset(tree_, ops_.p, shape_.densities, team);
}

void FarField::upward_pass(int team, Timings* t) {
  timed(&t->p2m, [&] { P2M(tree_, ops_, src_, &exp_, team); });
  timed(&t->m2m, [&] {
    for (int l = tree_.levels - 1; l >= 3; --l) M2M(tree_, ops_, l, &exp_, team);
  });
}

void FarField::downward_pass(int team, Timings* t) {
  const int L = tree_.levels;
  timed(&t->m2l, [&] { M2L(tree_, plan_, ops_, 3, L, &exp_, team); });
  timed(&t->p2l, [&] { P2L(tree_, plan_, ops_, src_, &exp_, team); });
  timed(&t->l2l, [&] {
    for (int l = 4; l <= L; ++l) L2L(tree_, ops_, l, &exp_, team);
  });
  timed(&t->l2p, [&] { L2P(tree_, ops_, exp_, out_, team); });
  timed(&t->m2p, [&] { M2P(tree_, plan_, ops_, exp_, out_, team); });
}

void FarField::add_to(const Outputs& out, int team) const {
  const std::size_t nt = tree_.n_targets(), all = std::size_t(shape_.densities) * nt;
  const std::int64_t* index = tree_.tgt_index();
  const bool field = shape_.field, hessian = shape_.hessian;
#pragma omp parallel for num_threads(team) schedule(static)
  for (std::size_t k = 0; k < all; ++k) {
    const std::size_t d = k / nt, i = k - d * nt;
    const std::size_t to = d * nt + std::size_t(index[i]);
    out.potential[to] += far_phi_[k];
    if (field) {
      out.field_x[to] += far_ex_[k];
      out.field_y[to] += far_ey_[k];
    }
    if (hessian) {
      out.hessian_xx[to] += far_hxx_[k];
      out.hessian_xy[to] += far_hxy_[k];
    }
  }
}

}  // namespace mlfma2d
