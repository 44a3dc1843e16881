#include "tree/plan.hpp"

#include <algorithm>
#include <cstdlib>

#include "mlfma2d/mlfma2d.hpp"
#include "runtime/threads.hpp"

namespace mlfma2d {

int m2l_offset_index(int dx, int dy) {
  // Row-major over the 7x7 square [-3,3]^2 with the 3x3 centre (the near field) left out.
  static const auto table = [] {
    std::array<int, 49> t{};
    int next = 0;
    for (int j = -3; j <= 3; ++j)
      for (int i = -3; i <= 3; ++i)
        t[(j + 3) * 7 + (i + 3)] = (std::abs(i) <= 1 && std::abs(j) <= 1) ? -1 : next++;
    return t;
  }();
  if (dx < -3 || dx > 3 || dy < -3 || dy > 3) return -1;
  return table[(dy + 3) * 7 + (dx + 3)];
}

std::array<int, 2> m2l_offset(int index) {
  for (int j = -3; j <= 3; ++j)
    for (int i = -3; i <= 3; ++i)
      if (m2l_offset_index(i, j) == index) return {i, j};
  return {0, 0};
}

namespace {

// The neighbour list N(b) of a box b with targets: the boxes with sources adjacent to b that
// are on b's level (its colleagues, b included) or coarser leaves. At most 9: each of the 3x3
// positions around b is covered by one of them at most. N(b) follows from N(parent): the
// children of its same-level non-leaf entries and its leaf entries, those adjacent to b.
struct Neighbours {
  std::array<BoxRef, 9> box;
  int n = 0;
};

// Whether boxes a and b touch (closed squares), whatever their levels.
bool adjacent(const Tree& tree, BoxRef a, BoxRef b) {
  if (a.level > b.level) std::swap(a, b);
  const int d = b.level - a.level;
  const BoxCoord ca = morton_decode(tree.at(a).key[a.box]),
                 cb = morton_decode(tree.at(b).key[b.box]);
  // a spans [ia 2^d, (ia + 1) 2^d) in b's units.
  auto touch = [d](std::int64_t ia, std::int64_t ib) {
    return ib <= ((ia + 1) << d) && ib + 1 >= (ia << d);
  };
  return touch(ca.ix, cb.ix) && touch(ca.iy, cb.iy);
}

// Key of a box at the deepest level: sorts boxes of any levels into Morton order.
std::uint64_t deep_key(const Tree& tree, BoxRef r) {
  return tree.at(r).key[r.box] << (2 * (kMaxLevels - r.level));
}

// What one chunk of a level's boxes produces; the chunks are concatenated in order, so the plan
// is deterministic for a thread count.
struct ChunkOut {
  std::array<std::vector<std::int32_t>, kM2LOffsets> m2l_tgt, m2l_src;  // V
  std::vector<std::int32_t> x_item;                                     // X: target box ...
  std::vector<BoxRef> x_box;                                            // ... and source leaf
  // Near leaves: (near leaf, first range, ranges, first W box, W boxes)
  struct Leaf {
    std::int64_t near, range_at, ranges, w_at, ws;
  };
  std::vector<Leaf> leaves;
  std::vector<std::int64_t> range;  // 2 per range
  std::vector<BoxRef> w;
};

class Builder {
 public:
  Builder(const Tree& tree, int threads, const PlanOptions& options)
      : tree_(tree), chunks_(team_size(threads)), opt_(options), out_(chunks_) {}

  Plan build() {
    Plan plan;
    const int L = tree_.levels;
    plan.m2l.resize(L + 1);
    plan.p2l.resize(L + 1);
    number_near_leaves(&plan);
    std::vector<Neighbours> up(1);
    up[0].box[0] = BoxRef{1, 0};
    up[0].n = tree_.level[1].has_sources(0) ? 1 : 0;
    visit_level(1, up, &plan);  // the root: a leaf only when the tree is one box
    for (int l = 2; l <= L; ++l) {
      std::vector<Neighbours> here;
      walk_level(l, up, &here, &plan);
      up.swap(here);
    }
    assemble_near(&plan);
    return plan;
  }

 private:
  // The near leaves (leaves with targets) in Morton order, and where each box's falls.
  void number_near_leaves(Plan* plan) {
    near_index_.resize(tree_.levels + 1);
    for (int l = 1; l <= tree_.levels; ++l) near_index_[l].assign(tree_.level[l].size(), -1);
    for (const BoxRef& r : tree_.leaves) {
      if (!tree_.at(r).has_targets(r.box)) continue;
      near_index_[r.level][r.box] = std::int64_t(plan->near_box.size());
      plan->near_box.push_back(r);
    }
  }

  // Level l top-down from N of level l - 1 (up, indexed by the parent's index): N, V and X of
  // every box with targets, and U and W of the leaves among them.
  void walk_level(int l, const std::vector<Neighbours>& up, std::vector<Neighbours>* here,
                  Plan* plan) {
    const Level& lv = tree_.level[l];
    const std::int64_t nb = std::int64_t(lv.size());
    here->assign(nb, Neighbours{});
#pragma omp parallel for num_threads(team_size(chunks_, nb)) schedule(static, 1)
    for (int c = 0; c < chunks_; ++c) {
      ChunkOut& out = out_[c];
      for (std::int64_t b = nb * c / chunks_; b < nb * (c + 1) / chunks_; ++b) {
        if (!lv.has_targets(b)) continue;
        const BoxRef me{l, std::int32_t(b)};
        const BoxCoord bc = morton_decode(lv.key[b]);
        Neighbours& mine = (*here)[b];
        const bool small_leaf = lv.is_leaf(b) && lv.targets(b) <= opt_.p2p_below;
        std::vector<BoxRef>& convert = convert_[c];
        convert.clear();
        const Neighbours& pn = up[lv.parent[b]];
        for (int e = 0; e < pn.n; ++e) {
          const BoxRef q = pn.box[e];
          const Level& lq = tree_.at(q);
          if (q.level == l - 1 && !lq.is_leaf(q.box)) {
            for (std::int32_t k = lq.child_begin[q.box]; k < lq.child_begin[q.box + 1]; ++k) {
              if (!lv.has_sources(k)) continue;
              const BoxCoord kc = morton_decode(lv.key[k]);
              const int o = m2l_offset_index(int(kc.ix) - int(bc.ix), int(kc.iy) - int(bc.iy));
              if (o < 0) {
                mine.box[mine.n++] = BoxRef{l, k};  // adjacent (or b itself)
              } else if (l >= 3) {
                out.m2l_tgt[o].push_back(std::int32_t(b));
                out.m2l_src[o].push_back(k);
              }
            }
          } else if (adjacent(tree_, q, me)) {
            mine.box[mine.n++] = q;  // a coarser leaf touching b
          } else if (small_leaf) {
            convert.push_back(q);  // X, cheaper as P2P into this leaf's few targets
          } else {
            out.x_item.push_back(std::int32_t(b));
            out.x_box.push_back(q);
          }
        }
        std::sort(mine.box.begin(), mine.box.begin() + mine.n,
                  [&](BoxRef a, BoxRef z) { return deep_key(tree_, a) < deep_key(tree_, z); });
        if (lv.is_leaf(b)) near_lists(me, mine, convert, &out);
      }
    }
    gather_level(l, plan);
  }

  // The root as a leaf: its own near list, nothing far.
  void visit_level(int l, const std::vector<Neighbours>& n, Plan* plan) {
    const Level& lv = tree_.level[l];
    if (lv.has_targets(0) && lv.is_leaf(0)) near_lists(BoxRef{l, 0}, n[0], {}, &out_[0]);
    gather_level(l, plan);
  }

  // U and W of leaf b: its leaf neighbours, and the descendants of its non-leaf colleagues --
  // those touching b are descended into (or are U when leaves), the others are W. W boxes and
  // X leaves cheaper as P2P join the near ranges.
  void near_lists(BoxRef b, const Neighbours& n, const std::vector<BoxRef>& convert,
                  ChunkOut* out) {
    std::vector<std::pair<std::int64_t, std::int64_t>>& r = ranges_[out - out_.data()];
    r.clear();
    const std::int64_t w_first = std::int64_t(out->w.size());
    auto add = [&](BoxRef k) {
      const Level& lk = tree_.at(k);
      r.emplace_back(lk.src_begin[k.box], lk.src_end[k.box]);
    };
    // Depth-first below a non-leaf colleague, in child (Morton) order.
    auto descend = [&](auto&& self, BoxRef k) -> void {
      const Level& lk = tree_.at(k);
      const Level& lc = tree_.level[k.level + 1];
      for (std::int32_t m = lk.child_begin[k.box]; m < lk.child_begin[k.box + 1]; ++m) {
        if (!lc.has_sources(m)) continue;
        const BoxRef child{k.level + 1, m};
        if (!adjacent(tree_, child, b)) {
          if (lc.sources(m) <= opt_.p2p_below)
            add(child);
          else
            out->w.push_back(child);
        } else if (lc.is_leaf(m)) {
          add(child);
        } else {
          self(self, child);
        }
      }
    };
    for (int e = 0; e < n.n; ++e) {
      const BoxRef k = n.box[e];
      if (tree_.at(k).is_leaf(k.box))
        add(k);
      else
        descend(descend, k);
    }
    for (const BoxRef& k : convert) add(k);
    // Ascending, then merged where one range ends where the next starts.
    std::sort(r.begin(), r.end());
    const std::int64_t range_first = std::int64_t(out->range.size());
    for (const auto& [lo, hi] : r) {
      if (out->range.size() > std::size_t(range_first) && out->range.back() == lo) {
        out->range.back() = hi;
      } else {
        out->range.push_back(lo);
        out->range.push_back(hi);
      }
    }
    out->leaves.push_back(ChunkOut::Leaf{near_index_[b.level][b.box], range_first / 2,
                                         (std::int64_t(out->range.size()) - range_first) / 2,
                                         w_first, std::int64_t(out->w.size()) - w_first});
  }

  // The V and X lists of level l from the chunks, in chunk order.
  void gather_level(int l, Plan* plan) {
    // Offset by offset, chunk by chunk, counted and placed by target: each target's pairs come
    // out in increasing order of their offset.
    M2LLevel& m2l = plan->m2l[l];
    const std::size_t boxes = tree_.level[l].size();
    m2l.target_begin.assign(boxes + 1, 0);
    for (const ChunkOut& c : out_)
      for (int o = 0; o < kM2LOffsets; ++o)
        for (std::int32_t t : c.m2l_tgt[o]) ++m2l.target_begin[std::size_t(t) + 1];
    for (std::size_t b = 0; b < boxes; ++b) m2l.target_begin[b + 1] += m2l.target_begin[b];
    const std::int64_t pairs = m2l.target_begin[boxes];
    m2l.src.resize(std::size_t(pairs));
    m2l.offset.resize(std::size_t(pairs));
    std::vector<std::int64_t> next(m2l.target_begin.begin(), m2l.target_begin.end() - 1);
    for (int o = 0; o < kM2LOffsets; ++o)
      for (ChunkOut& c : out_) {
        for (std::size_t i = 0; i < c.m2l_tgt[o].size(); ++i) {
          const std::size_t k = std::size_t(next[std::size_t(c.m2l_tgt[o][i])]++);
          m2l.src[k] = c.m2l_src[o][i];
          m2l.offset[k] = std::uint8_t(o);
        }
        c.m2l_tgt[o].clear();
        c.m2l_src[o].clear();
      }
    plan->m2l_pairs += m2l.pairs();

    const Level& lv = tree_.level[l];
    BoxLists& x = plan->p2l[l];
    x.begin.assign(lv.size() + 1, 0);
    for (const ChunkOut& c : out_)
      for (std::int32_t b : c.x_item) ++x.begin[b + 1];
    for (std::size_t b = 0; b < lv.size(); ++b) {
      x.begin[b + 1] += x.begin[b];
      if (l >= 3 && x.begin[b + 1] > x.begin[b])
        plan->p2l_boxes.push_back(BoxRef{l, std::int32_t(b)});
    }
    x.box.resize(x.begin.back());
    std::int64_t at = 0;  // chunks hold ascending boxes, in order: a plain concatenation
    for (ChunkOut& c : out_) {
      for (const BoxRef& s : c.x_box) {
        x.box[at++] = s;
        plan->p2l_terms += std::uint64_t(tree_.at(s).sources(s.box));
      }
      c.x_item.clear();
      c.x_box.clear();
    }
  }

  // The near field and the W lists from every chunk's leaves.
  void assemble_near(Plan* plan) {
    const std::size_t n = plan->near_box.size();
    NearField& nf = plan->near;
    nf.leaf_tgt.assign(n + 1, 0);
    nf.range_begin.assign(n + 1, 0);
    nf.sources.assign(n, 0);
    plan->m2p.begin.assign(n + 1, 0);
    for (const ChunkOut& c : out_)
      for (const ChunkOut::Leaf& f : c.leaves) {
        nf.range_begin[f.near + 1] = f.ranges;
        plan->m2p.begin[f.near + 1] = f.ws;
      }
    for (std::size_t i = 0; i < n; ++i) {
      nf.range_begin[i + 1] += nf.range_begin[i];
      plan->m2p.begin[i + 1] += plan->m2p.begin[i];
      const BoxRef r = plan->near_box[i];
      nf.leaf_tgt[i] = tree_.at(r).tgt_begin[r.box];
    }
    nf.leaf_tgt[n] = std::int64_t(tree_.n_targets());
    nf.range.resize(2 * std::size_t(nf.range_begin[n]));
    plan->m2p.box.resize(plan->m2p.begin[n]);
    std::uint64_t pairs = 0, m2p = 0;
    for (const ChunkOut& c : out_) {
      const std::int64_t count = std::int64_t(c.leaves.size());
#pragma omp parallel for num_threads(team_size(chunks_, count)) schedule(static) reduction(+ : pairs, m2p)
      for (std::int64_t k = 0; k < count; ++k) {
        const ChunkOut::Leaf& f = c.leaves[k];
        std::int64_t sources = 0;
        for (std::int64_t j = 0; j < 2 * f.ranges; j += 2) {
          nf.range[2 * nf.range_begin[f.near] + j] = c.range[2 * f.range_at + j];
          nf.range[2 * nf.range_begin[f.near] + j + 1] = c.range[2 * f.range_at + j + 1];
          sources += c.range[2 * f.range_at + j + 1] - c.range[2 * f.range_at + j];
        }
        std::copy(c.w.begin() + f.w_at, c.w.begin() + f.w_at + f.ws,
                  plan->m2p.box.begin() + plan->m2p.begin[f.near]);
        nf.sources[f.near] = sources;
        const std::int64_t targets = nf.targets(std::size_t(f.near));
        pairs += std::uint64_t(sources) * std::uint64_t(targets);
        m2p += std::uint64_t(f.ws) * std::uint64_t(targets);
      }
    }
    nf.pairs = pairs;
    plan->m2p_terms = m2p;
  }

  const Tree& tree_;
  const int chunks_;
  const PlanOptions opt_;
  std::vector<ChunkOut> out_;
  std::vector<std::vector<std::int64_t>> near_index_;
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> ranges_ =
      std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>(chunks_);
  std::vector<std::vector<BoxRef>> convert_ = std::vector<std::vector<BoxRef>>(chunks_);
};

}  // namespace

std::int64_t NearField::max_sources() const {
  std::int64_t most = 0;
  for (std::int64_t s : sources) most = std::max(most, s);
  return most;
}

Plan build_plan(const Tree& tree, int threads, const PlanOptions& options) {
  return Builder(tree, threads, options).build();
}

MutualLeaves mutual_leaves(const NearField& near) {
  const std::int64_t leaves = std::int64_t(near.leaves());
  const std::vector<std::int64_t>& t = near.leaf_tgt;
  // Whether one range of c's list holds all of [lo, hi).
  auto covers = [&](std::int64_t c, std::int64_t lo, std::int64_t hi) {
    const std::int64_t* r = near.range.data() + 2 * near.range_begin[c];
    std::int64_t a = 0, z = near.range_begin[c + 1] - near.range_begin[c];
    if (z == 0) return false;
    while (z - a > 1) {  // the last range starting at or before lo
      const std::int64_t m = (a + z) / 2;
      (r[2 * m] <= lo ? a : z) = m;
    }
    return r[2 * a] <= lo && r[2 * a + 1] >= hi;
  };
  MutualLeaves m;
  m.begin.push_back(0);
  for (std::int64_t b = 0; b < leaves; ++b) {
    for (std::int64_t k = near.range_begin[b]; k < near.range_begin[b + 1]; ++k) {
      const std::int64_t lo = near.range[2 * k], hi = near.range[2 * k + 1];
      std::int64_t c = std::upper_bound(t.begin(), t.end(), lo) - t.begin() - 1;
      for (; c < leaves && t[c] < hi; ++c) {
        // (near leaves hold targets: an empty one would be no one's mutual leaf)
        if (c == b || t[c] < lo || t[c + 1] > hi || t[c] == t[c + 1]) continue;
        if (covers(c, t[b], t[b + 1])) m.leaf.push_back(c);
      }
    }
    m.begin.push_back(std::int64_t(m.leaf.size()));
  }
  return m;
}

NearField one_way_near_field(const NearField& near, const MutualLeaves& m) {
  const std::vector<std::int64_t>& t = near.leaf_tgt;
  NearField out;
  out.leaf_tgt = t;
  out.range_begin.push_back(0);
  for (std::size_t b = 0; b < near.leaves(); ++b) {
    std::int64_t sources = 0;
    auto one = [&](std::int64_t lo, std::int64_t hi) {
      if (hi <= lo) return;
      out.range.push_back(lo);
      out.range.push_back(hi);
      sources += hi - lo;
    };
    // The mutual leaves ascend, and their targets with them, each inside one range.
    std::int64_t k = m.begin[b];
    for (std::int64_t r = near.range_begin[b]; r < near.range_begin[b + 1]; ++r) {
      std::int64_t at = near.range[2 * r];
      const std::int64_t hi = near.range[2 * r + 1];
      for (; k < m.begin[b + 1] && t[m.leaf[k]] < hi; ++k) {
        one(at, t[m.leaf[k]]);
        at = t[m.leaf[k] + 1];
      }
      one(at, hi);
    }
    out.range_begin.push_back(std::int64_t(out.range.size() / 2));
    out.sources.push_back(sources);
    out.pairs += std::uint64_t(sources) * std::uint64_t(near.targets(b));
  }
  return out;
}

}  // namespace mlfma2d
