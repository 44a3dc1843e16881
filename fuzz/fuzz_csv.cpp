// libFuzzer target: the CSV readers. Bytes -> a temporary .csv file -> read_points, read_targets
// and read_result. Rejecting the input with an mlfma2d::Error is fine; what the readers accept
// must be well formed (equal lengths, at least one point, finite values; fuzz_common.hpp).
#include <cstdint>

#include "fuzz/fuzz_common.hpp"

using mlfma2d::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = mlfma2d::fuzz::write_input(data, size, ".csv");
  mlfma2d::fuzz::read_all(
      path, [](const mlfma2d::PointSet& p) { check(!p.has_targets()); },
      [](const mlfma2d::ResultFile& r) {
        check(r.tx.size() == r.potential.size() && r.ty.size() == r.potential.size());
      });
  return 0;
}
