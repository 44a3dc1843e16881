#pragma once
// The figures of a tree and its plan, as the public TreeStats reports them.
#include "mlfma2d/mlfma2d.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// TreeStats of `tree` and `plan`: sizes, heights, t, D, boxes, the lists' work, box size
/// (terms, far_flops, device_memory and what the solver did to the caller's points are left at
/// their defaults: they belong to the solver).
TreeStats tree_figures(const Tree& tree, const Plan& plan);

}  // namespace mlfma2d
