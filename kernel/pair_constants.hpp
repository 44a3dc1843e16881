#pragma once
// The pair formula's constants (kernel/pair.hpp), apart so that the wide kernels
// (kernel/wide_impl.hpp), compiled for another instruction set, include no inline function.

namespace mlfma2d {

/// The smallest normal double (DBL_MIN), spelled out for device code.
constexpr double kPairMinR2 = 2.2250738585072014e-308;
/// 2^600 and log(2^600): the scale of the tiny-distance path (exact powers of two).
constexpr double kPairScale = 4.149515568880993e180;
constexpr double kPairLogScale = 415.88830833596717;

}  // namespace mlfma2d
