#include "solver/far_field.hpp"

#include "runtime/threads.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d {

FarField::FarField(const Tree& tree, const Plan& plan, int p) : tree_(tree), plan_(plan), ops_(p) {
  std::vector<std::vector<char>> visited(std::size_t(tree.levels) + 1);
  for (int l = 3; l <= tree.levels; ++l) visited[l].assign(tree.level[l].size(), 0);
  for (const BoxRef& r : tree.leaves)  // what P2M visits
    if (r.level >= 3 && tree.at(r).has_sources(r.box)) visited[r.level][r.box] = 1;
  for (int l = 3; l <= tree.levels; ++l)
    for (std::size_t b = 0; b < tree.level[l].size(); ++b)
      if (tree.level[l].is_leaf(b) && !visited[l][b]) unwritten_.push_back({l, std::int32_t(b)});
}

void FarField::reset(int densities, int team) {
  exp_.reset(tree_, ops_.p, densities, team);
}

void FarField::upward_pass(const FarSources& src, int team, Timings* t) {
  timed(&t->p2m, [&] {
    const std::int64_t n = std::int64_t(unwritten_.size());
#pragma omp parallel for num_threads(team_size(team, n)) schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
      zero_columns(&exp_.multipole[unwritten_[i].level], unwritten_[i].box, exp_.nd);
    P2M(tree_, ops_, src, &exp_, team);
  });
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
