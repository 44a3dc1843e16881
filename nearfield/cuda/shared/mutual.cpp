// Host-side layout of the shared back end's mutual path (mutual.hpp), built once per geometry.
#include "nearfield/cuda/shared/mutual.hpp"

#include <algorithm>

namespace mlfma2d::cuda {

MutualLayout mutual_layout(const NearFieldProblem& p) {
  const NearField& near = *p.near;
  const std::vector<std::int64_t>& t = near.leaf_tgt;
  const MutualLeaves m = keep_mutual(mutual_leaves(near), [&](std::int64_t b, std::int64_t c) {
    return mutual_lanes(near.targets(std::size_t(b)), near.targets(std::size_t(c))) >=
           kMutualMinLanes;
  });
  MutualLayout l;
  l.one = one_way_near_field(near, m);
  // Each leaf's slots: one run of its targets per mutual leaf, in the order of m.
  const auto leaves = static_cast<std::int64_t>(near.leaves());
  std::vector<std::int64_t> first(std::size_t(leaves), 0);
  for (std::int64_t b = 0; b < leaves; ++b) {
    const std::int64_t partners = m.of(std::size_t(b));
    if (partners == 0) continue;
    first[std::size_t(b)] = l.slots;
    l.comb_t0.push_back(std::int32_t(t[b]));
    l.comb_n.push_back(std::int32_t(near.targets(std::size_t(b))));
    l.comb_partners.push_back(std::int32_t(partners));
    l.comb_slot.push_back(l.slots);
    l.slots += partners * near.targets(std::size_t(b));
  }
  // Where leaf b's run for its k-th mutual leaf starts.
  auto run = [&](std::int64_t b, std::int64_t k) {
    return first[std::size_t(b)] + (k - m.begin[b]) * near.targets(std::size_t(b));
  };
  for (std::int64_t b = 0; b < leaves; ++b) {
    for (std::int64_t k = m.begin[b]; k < m.begin[b + 1]; ++k) {
      const std::int64_t c = m.leaf[std::size_t(k)];
      if (c < b) continue;
      // b's place in c's list (ascending)
      const auto at =
          std::lower_bound(m.leaf.begin() + m.begin[c], m.leaf.begin() + m.begin[c + 1], b) -
          m.leaf.begin();
      l.task_b0.push_back(std::int32_t(t[b]));
      l.task_nb.push_back(std::int32_t(near.targets(std::size_t(b))));
      l.task_c0.push_back(std::int32_t(t[c]));
      l.task_nc.push_back(std::int32_t(near.targets(std::size_t(c))));
      l.task_fwd.push_back(run(b, k));
      l.task_back.push_back(run(c, at));
    }
  }
  return l;
}

}  // namespace mlfma2d::cuda
