#pragma once
// What the GPU back-end tests share (a CUDA build): the skip where no device is found, the near
// field's equivalence to the cpu back end's, and the same bits in every output.
#include <gtest/gtest.h>

#include <string>

#include "nearfield/cuda/common/cuda_common.hpp"
#include "tests/near_field_geometry.hpp"

/// Skips the test, with the reason, where no CUDA device is found.
#define REQUIRE_CUDA_DEVICE()                                           \
  do {                                                                  \
    std::string why_;                                                   \
    if (::mlfma2d::cuda_device_count(&why_) == 0) GTEST_SKIP() << why_; \
  } while (0)

namespace mlfma2d::testing {

/// The sums of a GPU back end within 1e-12 (relative, testing::rel_diff) of the reference's:
/// the potential, and with `field` the field.
inline void expect_equivalent(const Sums& s, const Sums& ref, bool field) {
  EXPECT_LE(rel_diff(s.phi, ref.phi), 1e-12);
  if (field) {
    EXPECT_LE(rel_diff(s.ex, ref.ex), 1e-12);
    EXPECT_LE(rel_diff(s.ey, ref.ey), 1e-12);
  }
}

/// Every output of a the same bits as b's (the outputs not computed empty in both).
inline void expect_identical(const DensitySums& a, const DensitySums& b) {
  EXPECT_EQ(a.phi, b.phi);
  EXPECT_EQ(a.ex, b.ex);
  EXPECT_EQ(a.ey, b.ey);
  EXPECT_EQ(a.hxx, b.hxx);
  EXPECT_EQ(a.hxy, b.hxy);
}

}  // namespace mlfma2d::testing
