#pragma once
// The pair formula's constants (kernel/pair.hpp), apart so that the wide kernels
// (kernel/wide_impl.hpp), compiled for another instruction set, include no inline function.

namespace mlfma2d {

/// The smallest normal double (DBL_MIN), spelled out for device code.
constexpr double kPairMinR2 = 2.2250738585072014e-308;
/// 2^600 and log(2^600): the scale of the tiny-distance path (exact powers of two).
constexpr double kPairScale = 4.149515568880993e180;
constexpr double kPairLogScale = 415.88830833596717;

/// The sums of a target and density at each order (PairOrder): phi; phi, E_x, E_y; and H_xx,
/// H_xy as well (the field is summed whenever the Hessian is).
constexpr int kPairSums[3] = {1, 3, 5};

}  // namespace mlfma2d
