#include "electrostatics/near.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace mlfma2d::es {

namespace {
constexpr std::uint32_t kLeafSize = 16;
// Fewer panels than this are searched by one thread: a parallel region would cost more.
constexpr std::size_t kParallelFrom = 4096;
}  // namespace

PointTree::PointTree(const std::vector<double>& x, const std::vector<double>& y)
    : x_(x), y_(y), order_(x.size()) {
  for (std::uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  nodes_.reserve(2 * (order_.size() / kLeafSize + 1));
  if (!order_.empty()) build(0, static_cast<std::uint32_t>(order_.size()));
}

std::int32_t PointTree::build(std::uint32_t begin, std::uint32_t end) {
  Node node{x_[order_[begin]], x_[order_[begin]], y_[order_[begin]], y_[order_[begin]], begin, end};
  for (std::uint32_t k = begin; k < end; ++k) {
    node.xmin = std::min(node.xmin, x_[order_[k]]);
    node.xmax = std::max(node.xmax, x_[order_[k]]);
    node.ymin = std::min(node.ymin, y_[order_[k]]);
    node.ymax = std::max(node.ymax, y_[order_[k]]);
  }
  const auto id = static_cast<std::int32_t>(nodes_.size());
  nodes_.push_back(node);
  if (end - begin > kLeafSize) {
    // Median split across the wider side.
    const bool by_x = node.xmax - node.xmin >= node.ymax - node.ymin;
    const std::uint32_t mid = begin + (end - begin) / 2;
    std::nth_element(
        order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
        [&](std::uint32_t a, std::uint32_t b) { return by_x ? x_[a] < x_[b] : y_[a] < y_[b]; });
    const std::int32_t left = build(begin, mid);
    const std::int32_t right = build(mid, end);
    nodes_[id].left = left;
    nodes_[id].right = right;
  }
  return id;
}

void PointTree::within(double cx, double cy, double r, std::vector<std::uint32_t>* out) const {
  if (nodes_.empty()) return;
  const double r2 = r * r;
  std::int32_t stack[128];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& n = nodes_[stack[--top]];
    const double dx = std::max({n.xmin - cx, 0.0, cx - n.xmax});
    const double dy = std::max({n.ymin - cy, 0.0, cy - n.ymax});
    if (dx * dx + dy * dy > r2) continue;
    if (n.left < 0) {
      for (std::uint32_t k = n.begin; k < n.end; ++k) {
        const std::uint32_t i = order_[k];
        const double ex = x_[i] - cx, ey = y_[i] - cy;
        if (ex * ex + ey * ey <= r2) out->push_back(i);
      }
    } else {
      stack[top++] = n.left;
      stack[top++] = n.right;
    }
  }
}

SparseRows near_pairs(const std::vector<double>& tx, const std::vector<double>& ty,
                      const std::vector<double>& cx, const std::vector<double>& cy,
                      const std::vector<double>& radius, int threads) {
  const PointTree tree(tx, ty);
  const std::size_t np = cx.size(), nt = tx.size();
  // Targets of each panel (columns), then transposed into rows.
  std::vector<std::vector<std::uint32_t>> of_panel(np);
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads) if (np >= kParallelFrom)
  for (std::size_t j = 0; j < np; ++j) tree.within(cx[j], cy[j], radius[j], &of_panel[j]);
  SparseRows rows;
  rows.start.assign(nt + 1, 0);
  for (const auto& targets : of_panel) {
    for (std::uint32_t i : targets) ++rows.start[i + 1];
  }
  for (std::size_t i = 0; i < nt; ++i) rows.start[i + 1] += rows.start[i];
  rows.col.resize(rows.start[nt]);
  rows.val.assign(rows.start[nt], 0.0);
  std::vector<std::size_t> fill(rows.start.begin(), rows.start.end() - 1);
  for (std::size_t j = 0; j < np; ++j) {  // ascending j: columns come out sorted
    for (std::uint32_t i : of_panel[j]) rows.col[fill[i]++] = static_cast<std::uint32_t>(j);
  }
  return rows;
}

}  // namespace mlfma2d::es
