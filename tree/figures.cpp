#include "tree/figures.hpp"

namespace mlfma2d {

TreeStats tree_figures(const Tree& tree, const Plan& plan) {
  TreeStats s;
  s.n_sources = tree.n_sources();
  s.n_targets = tree.n_targets();
  s.self = tree.self;
  s.levels = tree.levels;
  s.levels_ct = tree.levels_ct;
  s.levels_capped = tree.capped;
  s.ct = tree.ct;
  s.t = tree.t;
  s.D = tree.mean_per_box;
  s.tree = tree_kind_name(tree.kind);
  s.leaf_boxes = tree.leaves.size();
  s.boxes = tree.boxes();
  s.near_pairs = plan.near.pairs;
  s.m2l_pairs = plan.m2l_pairs;
  s.m2p_terms = plan.m2p_terms;
  s.p2l_terms = plan.p2l_terms;
  s.box_size = tree.size;
  return s;
}

}  // namespace mlfma2d
