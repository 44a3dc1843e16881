// libFuzzer target: the CSV readers. Bytes -> a temporary .csv file -> read_points, read_targets
// and read_result. Rejecting the input with an mlfma2d::Error is fine; what the readers accept
// must be well formed (equal lengths, at least one point, finite values).
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "fuzz/fuzz_common.hpp"
#include "mlfma2d/io.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();  // a reader accepted data that break its own contract
}

bool all_finite(const std::vector<double>& v) {
  for (double d : v) {
    if (!std::isfinite(d)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = mlfma2d::fuzz::write_input(data, size, ".csv");
  try {
    const mlfma2d::PointSet p = mlfma2d::read_points(path);
    check(!p.x.empty() && p.x.size() == p.y.size() && p.x.size() == p.q.size());
    check(!p.has_targets());
    check(all_finite(p.x) && all_finite(p.y) && all_finite(p.q));
  } catch (const mlfma2d::Error&) {
  }
  try {
    std::vector<double> tx, ty;
    mlfma2d::read_targets(path, &tx, &ty);
    check(!tx.empty() && tx.size() == ty.size() && all_finite(tx) && all_finite(ty));
  } catch (const mlfma2d::Error&) {
  }
  try {
    const mlfma2d::ResultFile r = mlfma2d::read_result(path);
    check(r.tx.size() == r.potential.size() && r.ty.size() == r.potential.size());
    check(r.field_x.size() == r.field_y.size());
    check(r.field_x.empty() || r.field_x.size() == r.potential.size());
  } catch (const mlfma2d::Error&) {
  }
  return 0;
}
