#include "distributed/let.hpp"

#include <algorithm>
#include <numeric>

#include "mlfma2d/errors.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d {
namespace {

// The tags of the exchanges (each its own, so that two in flight between one pair of ranks never
// take each other's messages).
enum Tag : int { kStrengths = 1, kResults, kGhosts, kMultipoles, kTargetStrengths, kTargetResults };

// This rank's sorted points in each rank's leaves (its leaves tile the sorted points, so these are
// consecutive runs of them).
std::vector<std::int64_t> counts_to_owners(const GlobalShape& g, const Partition& part,
                                           bool sources) {
  std::vector<std::int64_t> c(std::size_t(part.ranks()), 0);
  for (int r = 0; r < part.ranks(); ++r) {
    if (part.begin(r) == part.end(r)) continue;
    const BoxRef a = g.tree.leaves[part.begin(r)], b = g.tree.leaves[part.end(r) - 1];
    const Level &la = g.local[a.level], &lb = g.local[b.level];
    c[r] =
        sources ? lb.src_end[b.box] - la.src_begin[a.box] : lb.tgt_end[b.box] - la.tgt_begin[a.box];
  }
  return c;
}

// Two coordinate arrays as one of (x, y) pairs, and back.
std::vector<double> interleave(const double* x, const double* y, std::size_t n) {
  std::vector<double> xy(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    xy[2 * i] = x[i];
    xy[2 * i + 1] = y[i];
  }
  return xy;
}
void split_pairs(const std::vector<double>& xy, Array<double>* x, Array<double>* y) {
  const std::size_t n = xy.size() / 2;
  x->resize(n);
  y->resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    (*x)[i] = xy[2 * i];
    (*y)[i] = xy[2 * i + 1];
  }
}

// One point set to the owners of its leaves: the route, and the own points (sorted by key in the
// root box: their keys are the senders', the ties in the order of the ranks that sent them).
Route send_to_owners(const Comm& comm, const KeyedPoints& pts,
                     const std::vector<std::int64_t>& counts, const RootBox& box, int tag,
                     int threads, Traffic* t, KeyedPoints* own) {
  std::vector<std::int64_t> pairs(counts.size()), got_pairs;
  for (std::size_t r = 0; r < counts.size(); ++r) pairs[r] = 2 * counts[r];
  const std::vector<double> got =
      comm.alltoallv(interleave(pts.x.data(), pts.y.data(), pts.key.size()), pairs, &got_pairs, t);
  Array<double> x, y;
  split_pairs(got, &x, &y);
  *own = sort_keyed_points(PointsRef{x.data(), y.data(), x.size()}, box, threads);
  std::vector<std::int64_t> got_counts(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) got_counts[r] = got_pairs[r] / 2;
  Route route;
  route.to_owners = Exchange(&comm, counts, got_counts, tag);
  route.from_owners = Exchange(&comm, got_counts, counts, tag + 1);
  route.caller = pts.index;
  route.arrived = std::move(own->index);
  return route;
}

// Deepest-level keys and global source ranges of the shape's leaves (Morton order).
struct LeafIndex {
  std::vector<std::uint64_t> key;
  std::vector<std::int64_t> src_begin, src_end;
  explicit LeafIndex(const Tree& shape) {
    for (const BoxRef& r : shape.leaves) {
      const Level& lv = shape.at(r);
      key.push_back(lv.key[r.box] << (2 * (kMaxLevels - r.level)));
      src_begin.push_back(lv.src_begin[r.box]);
      src_end.push_back(lv.src_end[r.box]);
    }
  }
  // The leaves of box `k` of level l: [first, end).
  std::pair<std::int64_t, std::int64_t> of_box(int l, std::uint64_t k) const {
    const int shift = 2 * (kMaxLevels - l);
    const auto lo = std::lower_bound(key.begin(), key.end(), k << shift);
    const auto hi = std::lower_bound(lo, key.end(), (k + 1) << shift);
    return {lo - key.begin(), hi - key.begin()};
  }
  std::int64_t of_leaf(const Tree& shape, BoxRef r) const {
    return of_box(r.level, shape.at(r).key[r.box]).first;
  }
};

// The remote leaves with sources that `plan`'s near ranges and X lists read, ascending.
std::vector<std::int64_t> remote_source_leaves(const Tree& shape, const Plan& plan,
                                               const LeafIndex& leaves, std::int64_t own_begin,
                                               std::int64_t own_end) {
  std::vector<std::int64_t> need;
  auto add = [&](std::int64_t g) {
    if ((g < own_begin || g >= own_end) && leaves.src_end[g] > leaves.src_begin[g])
      need.push_back(g);
  };
  const std::vector<std::int64_t>& range = plan.near.range;
  const std::int64_t nl = std::int64_t(leaves.key.size());
  for (std::size_t k = 0; k < range.size(); k += 2) {
    std::int64_t g = std::lower_bound(leaves.src_begin.begin(), leaves.src_begin.end(), range[k]) -
                     leaves.src_begin.begin();
    for (; g < nl && leaves.src_begin[g] < range[k + 1]; ++g) add(g);
  }
  for (const BoxLists& x : plan.p2l)
    for (const BoxRef& r : x.box) add(leaves.of_leaf(shape, r));
  std::sort(need.begin(), need.end());
  need.erase(std::unique(need.begin(), need.end()), need.end());
  return need;
}

}  // namespace

OwnedPoints distribute_points(const Comm& comm, const LocalPoints& points, const GlobalShape& shape,
                              const Partition& part, int threads, Traffic* t) {
  OwnedPoints own;
  const int me = comm.rank();
  if (part.begin(me) < part.end(me)) {
    const BoxRef a = shape.tree.leaves[part.begin(me)];
    own.source_offset = shape.tree.at(a).src_begin[a.box];
  }
  KeyedPoints mine;
  own.sources = send_to_owners(comm, points.sources, counts_to_owners(shape, part, true),
                               points.box, kStrengths, threads, t, &mine);
  own.sx = std::move(mine.x);
  own.sy = std::move(mine.y);
  if (!points.self) {
    own.targets = send_to_owners(comm, points.targets, counts_to_owners(shape, part, false),
                                 points.box, kTargetStrengths, threads, t, &mine);
    own.tx = std::move(mine.x);
    own.ty = std::move(mine.y);
  }
  return own;
}

Ghosts fetch_ghosts(const Comm& comm, const Tree& shape, const Plan& plan, const Partition& part,
                    const OwnedPoints& own, Traffic* t) {
  const int me = comm.rank(), n = comm.size();
  const LeafIndex leaves(shape);
  Ghosts gh;
  gh.leaves = remote_source_leaves(shape, plan, leaves, part.begin(me), part.end(me));
  // Requests: each owner's leaves; answers: their points, in the order asked.
  std::vector<std::int64_t> ask(static_cast<std::size_t>(n), 0),
      recv_points(static_cast<std::size_t>(n), 0), asked_counts;
  for (std::int64_t g : gh.leaves) {
    const int r = part.owner(g);
    ++ask[r];
    recv_points[r] += leaves.src_end[g] - leaves.src_begin[g];
  }
  const std::vector<std::int64_t> asked = comm.alltoallv(gh.leaves, ask, &asked_counts, t);
  std::vector<std::int64_t> send_points(static_cast<std::size_t>(n), 0);
  std::size_t k = 0;
  for (int r = 0; r < n; ++r) {
    for (std::int64_t i = 0; i < asked_counts[r]; ++i, ++k) {
      const std::int64_t g = asked[k];
      for (std::int64_t j = leaves.src_begin[g]; j < leaves.src_end[g]; ++j)
        gh.send_index.push_back(j - own.source_offset);
      send_points[r] += leaves.src_end[g] - leaves.src_begin[g];
    }
  }
  gh.exchange = Exchange(&comm, send_points, recv_points, kGhosts);
  gh.before = gh.exchange.recv_begin()[me];
  // The coordinates, once, through the strengths' exchange.
  std::vector<double> xy(2 * gh.send_index.size()), got(2 * std::size_t(gh.exchange.recv_items()));
  for (std::size_t i = 0; i < gh.send_index.size(); ++i) {
    xy[2 * i] = own.sx[gh.send_index[i]];
    xy[2 * i + 1] = own.sy[gh.send_index[i]];
  }
  gh.exchange.post(xy.data(), got.data(), 2, t);
  gh.exchange.wait(t);
  split_pairs(got, &gh.x, &gh.y);
  return gh;
}

MultipoleRoute route_multipoles(const Comm& comm, const Let& let, const Tree& shape,
                                const Partition& part, Traffic* t) {
  const int me = comm.rank(), n = comm.size();
  const LeafIndex leaves(shape);
  const Tree& tree = let.tree;
  // The V and W boxes, each once: those whose leaves are not all this rank's.
  std::vector<std::vector<char>> seen(std::size_t(tree.levels) + 1);
  for (int l = 1; l <= tree.levels; ++l) seen[l].assign(tree.level[l].size(), 0);
  std::vector<BoxRef> boxes;
  auto add = [&](BoxRef r) {
    if (seen[r.level][r.box]) return;
    seen[r.level][r.box] = 1;
    boxes.push_back(r);
  };
  for (int l = 1; l <= tree.levels; ++l)
    for (std::int32_t b : let.plan.m2l[l].src) add(BoxRef{l, b});
  for (const BoxRef& r : let.plan.m2p.box) add(r);
  std::sort(boxes.begin(), boxes.end(), [](BoxRef a, BoxRef b) {
    return a.level != b.level ? a.level < b.level : a.box < b.box;
  });
  // One request per box and holder: (level, key) pairs, by holder.
  std::vector<std::vector<std::int64_t>> to(static_cast<std::size_t>(n));
  std::vector<std::vector<BoxRef>> recv_of(static_cast<std::size_t>(n));
  for (const BoxRef& r : boxes) {
    const auto [lo, hi] = leaves.of_box(r.level, tree.at(r).key[r.box]);
    for (int h = part.owner(lo); h <= part.owner(hi - 1); ++h) {
      if (h == me || part.begin(h) == part.end(h)) continue;
      to[h].push_back(r.level);
      to[h].push_back(std::int64_t(tree.at(r).key[r.box]));
      recv_of[h].push_back(r);
    }
  }
  std::vector<std::int64_t> flat, counts(static_cast<std::size_t>(n)), got_counts;
  MultipoleRoute route;
  std::vector<std::int64_t> recv_counts(static_cast<std::size_t>(n));
  for (int h = 0; h < n; ++h) {
    flat.insert(flat.end(), to[h].begin(), to[h].end());
    counts[h] = std::int64_t(to[h].size());
    recv_counts[h] = std::int64_t(recv_of[h].size());
    route.recv_box.insert(route.recv_box.end(), recv_of[h].begin(), recv_of[h].end());
  }
  const std::vector<std::int64_t> asked = comm.alltoallv(flat, counts, &got_counts, t);
  std::vector<std::int64_t> send_counts(static_cast<std::size_t>(n));
  for (int h = 0; h < n; ++h) send_counts[h] = got_counts[h] / 2;
  for (std::size_t k = 0; k < asked.size(); k += 2) {
    const int l = int(asked[k]);
    const std::int32_t b =
        l <= tree.levels ? tree.level[l].find(std::uint64_t(asked[k + 1])) : std::int32_t(-1);
    if (b < 0)
      throw RuntimeFailure("internal: a box asked for its multipole is not in the rank's tree");
    route.send_box.push_back(BoxRef{l, b});
  }
  route.exchange = Exchange(&comm, send_counts, recv_counts, kMultipoles);
  return route;
}

}  // namespace mlfma2d
