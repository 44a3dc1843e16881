#include "solver/far_field.hpp"

#include "runtime/timer.hpp"

namespace mlfma2d {

FarField::FarField(const Tree& tree, const Plan& plan, int p) : tree_(tree), plan_(plan), ops_(p) {}

void FarField::reset(int densities, int team) {
  exp_.reset(tree_, ops_.p, densities, team);
}

void FarField::upward_pass(const FarSources& src, int team, Timings* t) {
  timed(&t->p2m, [&] { P2M(tree_, ops_, src, &exp_, team); });
  timed(&t->m2m, [&] {
    for (int l = tree_.levels - 1; l >= 3; --l) M2M(tree_, ops_, l, &exp_, team);
  });
}

void FarField::downward_pass(const FarSources& src, const FarOutputs& out, int team, Timings* t) {
  const int L = tree_.levels;
  timed(&t->m2l, [&] { M2L(tree_, plan_, ops_, 3, L, &exp_, team); });
  timed(&t->p2l, [&] { P2L(tree_, plan_, ops_, src, &exp_, team); });
  timed(&t->l2l, [&] {
    for (int l = 4; l <= L; ++l) L2L(tree_, ops_, l, &exp_, team);
  });
  timed(&t->l2p, [&] { L2P(tree_, ops_, exp_, out, team); });
  timed(&t->m2p, [&] { M2P(tree_, plan_, ops_, exp_, out, team); });
}

}  // namespace mlfma2d
