#include "distributed/exchange.hpp"

#include <cstring>

namespace mlfma2d {

void pack_multipoles(const Expansions& e, const std::vector<BoxRef>& boxes, int p, double* buf) {
  // A box's nd columns (expansion_rows(p) coefficients each) are contiguous: one copy each.
  const std::size_t w = multipole_width(p, e.nd);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const Complex* from = &e.multipole[boxes[i].level](0, Eigen::Index(boxes[i].box) * e.nd);
    std::memcpy(buf + i * w, from, w * sizeof(double));
  }
}

void add_multipoles(const double* buf, const std::vector<BoxRef>& boxes, int p, Expansions* e) {
  const std::size_t w = multipole_width(p, e->nd);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    auto* to = reinterpret_cast<double*>(
        &e->multipole[boxes[i].level](0, Eigen::Index(boxes[i].box) * e->nd));
    const double* from = buf + i * w;
    for (std::size_t k = 0; k < w; ++k) to[k] += from[k];
  }
}

}  // namespace mlfma2d
