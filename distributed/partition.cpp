#include "distributed/partition.hpp"

#include <algorithm>
#include <numeric>

namespace mlfma2d {

int Partition::owner(std::int64_t g) const {
  return int(std::upper_bound(first.begin(), first.end(), g) - first.begin()) - 1;
}

Partition cut_leaves(const std::vector<double>& weight, int ranks) {
  Partition part;
  part.first.assign(std::size_t(ranks) + 1, 0);
  const std::int64_t n = std::int64_t(weight.size());
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  // Leaf g goes to rank floor(ranks * (its middle) / total): the ranks' shares, each leaf whole.
  double before = 0;
  int r = 0;
  for (std::int64_t g = 0; g < n; ++g) {
    const double middle = before + 0.5 * weight[g];
    const int mine =
        total > 0 ? std::min(ranks - 1, int(double(ranks) * middle / total)) : int(g * ranks / n);
    while (r < mine) part.first[++r] = g;
    before += weight[g];
  }
  while (r < ranks) part.first[++r] = n;
  return part;
}

std::vector<double> leaf_points(const Tree& shape) {
  std::vector<double> w(shape.leaves.size());
  for (std::size_t g = 0; g < w.size(); ++g) {
    const BoxRef r = shape.leaves[g];
    const Level& lv = shape.at(r);
    w[g] = double(lv.sources(r.box) + (shape.self ? 0 : lv.targets(r.box)));
  }
  return w;
}

RestrictedTargets::RestrictedTargets(Tree* shape, std::int64_t first, std::int64_t end)
    : shape_(shape) {
  if (first < end) {
    const BoxRef a = shape->leaves[first], b = shape->leaves[end - 1];
    s_lo_ = shape->at(a).src_begin[a.box];
    s_hi_ = shape->at(b).src_end[b.box];
    t_lo_ = shape->at(a).tgt_begin[a.box];
    t_hi_ = shape->at(b).tgt_end[b.box];
  }
  const int L = shape->levels;
  saved_begin_.resize(std::size_t(L) + 1);
  saved_end_.resize(std::size_t(L) + 1);
  for (int l = 1; l <= L; ++l) {
    Level& lv = shape->level[l];
    saved_begin_[l] = lv.tgt_begin;
    saved_end_[l] = lv.tgt_end;
    for (std::size_t k = 0; k < lv.size(); ++k) {
      lv.tgt_begin[k] = std::clamp(lv.tgt_begin[k], t_lo_, t_hi_) - t_lo_;
      lv.tgt_end[k] = std::clamp(lv.tgt_end[k], t_lo_, t_hi_) - t_lo_;
    }
  }
}

RestrictedTargets::~RestrictedTargets() {
  for (int l = 1; l <= shape_->levels; ++l) {
    shape_->level[l].tgt_begin.swap(saved_begin_[l]);
    shape_->level[l].tgt_end.swap(saved_end_[l]);
  }
}

LeafWork leaf_work(const Tree& shape, const RestrictedTargets& restricted, const Plan& plan,
                   std::int64_t first, std::int64_t end) {
  const int L = shape.levels;
  // Each box's own work per target, accumulated from the root down: m2l pairs, boxes, X terms.
  std::vector<std::vector<FarWork>> box(std::size_t(L) + 1);
  for (int l = 1; l <= L; ++l) box[l].assign(shape.level[l].size(), FarWork{});
  for (int l = 3; l <= L; ++l) {
    const M2LLevel& v = plan.m2l[l];
    for (std::size_t b = 0; b + 1 < v.target_begin.size(); ++b)
      box[l][b].m2l += double(v.pairs_of(b));
    const BoxLists& x = plan.p2l[l];
    for (std::size_t b = 0; b < x.items(); ++b)
      for (std::int64_t e = x.begin[b]; e < x.begin[b + 1]; ++e)
        box[l][b].wx += double(shape.at(x.box[e]).sources(x.box[e].box));
  }
  for (int l = 1; l <= L; ++l) {
    const Level& lv = shape.level[l];
    for (std::size_t b = 0; b < lv.size(); ++b) {
      if (!lv.has_targets(b)) continue;
      FarWork& w = box[l][b];
      const double t = double(restricted.global_targets(l, b));
      const FarWork above = l > 1 ? box[l - 1][lv.parent[b]] : FarWork{};
      w.m2l = above.m2l + w.m2l / t;
      w.wx = above.wx + w.wx / t;
      w.boxes = above.boxes + (l >= 3 ? 1.0 / t : 0.0);
    }
  }
  // The leaves: their own work and their targets' share of their boxes'.
  LeafWork out;
  const std::size_t n = std::size_t(end - first);
  out.far.assign(n, FarWork{});
  out.pairs.assign(n, 0.0);
  out.points.assign(n, 0.0);
  std::size_t i = 0;  // near leaves are the own leaves with targets, in the same order
  for (std::size_t j = 0; j < n; ++j) {
    const BoxRef r = shape.leaves[first + std::int64_t(j)];
    const Level& lv = shape.at(r);
    const double s = double(lv.sources(r.box)), t = double(lv.targets(r.box));
    FarWork& w = out.far[j];
    if (t > 0) {
      const FarWork& share = box[r.level][r.box];
      w.m2l = share.m2l * t;
      w.boxes = share.boxes * t;
      w.wx = share.wx * t + double(plan.m2p.begin[i + 1] - plan.m2p.begin[i]) * t;
      out.pairs[j] = double(plan.near.sources[i]) * t;
      ++i;
    }
    if (r.level >= 3) {
      w.sources = s;
      w.targets = t;
      w.leaves = 1;
    }
    out.points[j] = s + t;  // as the model counts them: targets too when they are the sources
    out.total_far.m2l += w.m2l;
    out.total_far.boxes += w.boxes;
    out.total_far.sources += w.sources;
    out.total_far.targets += w.targets;
    out.total_far.wx += w.wx;
    out.total_far.leaves += w.leaves;
    out.total_pairs += out.pairs[j];
    out.total_points += out.points[j];
  }
  return out;
}

std::vector<double> leaf_costs(const LeafWork& work, const CostModel& model, int p,
                               const FarShape& far) {
  CostModel m = model;
  m.fixed = 0;
  m.overlap = false;
  std::vector<double> cost(work.far.size());
  for (std::size_t j = 0; j < cost.size(); ++j)
    cost[j] = predict(m, work.far[j], work.pairs[j], work.points[j], p, far).total;
  return cost;
}

CostModel default_partition_model() {
  // One thread of the development machine at p = 18 (its calibration cache), but the near field's
  // per-point constant: measured 1.4e-7 s there (noise: it is the difference of two near-field
  // times), taken as 2e-8 s, four pairs' time.
  CostModel m;
  m.m2l = 1.3e-9;
  m.box = 7.4e-10;
  m.point = 1.8e-9;
  m.wx = 7.8e-9;
  m.far_point = 5e-9;
  m.near_point = 2e-8;
  m.pair = 5.2e-9;
  return m;
}

}  // namespace mlfma2d
