#pragma once
// Which targets are near which panels: a static 2-d tree over the targets, queried once per
// panel with the panel's own radius (near_radius * its length), so graded meshes (panels of
// very different sizes side by side) get the right neighbours.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mlfma2d::es {

/// \brief Sparse rows: for target i, entries [start[i], start[i+1]) of col (panel) and val.
struct SparseRows {
  std::vector<std::size_t> start{0};
  std::vector<std::uint32_t> col;
  std::vector<double> val;
  std::size_t rows() const { return start.size() - 1; }
};

/// \brief A 2-d tree over points, built once; radius queries.
class PointTree {
 public:
  PointTree(const std::vector<double>& x, const std::vector<double>& y);
  /// Appends to `out` the indices of the points within distance r of (cx, cy) (|p - c| <= r).
  void within(double cx, double cy, double r, std::vector<std::uint32_t>* out) const;

 private:
  struct Node {
    double xmin, xmax, ymin, ymax;
    std::uint32_t begin, end;  // range of order_
    std::int32_t left = -1, right = -1;
  };
  std::int32_t build(std::uint32_t begin, std::uint32_t end);
  const std::vector<double>& x_;
  const std::vector<double>& y_;
  std::vector<std::uint32_t> order_;
  std::vector<Node> nodes_;
};

/// The (target, panel) pairs with |target - centre_j| <= radius_j, as rows of the targets
/// (columns ascending), values zero. OpenMP over panels, `threads` of them.
SparseRows near_pairs(const std::vector<double>& tx, const std::vector<double>& ty,
                      const std::vector<double>& cx, const std::vector<double>& cy,
                      const std::vector<double>& radius, int threads);

}  // namespace mlfma2d::es
