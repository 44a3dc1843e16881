// libFuzzer target: the HDF5 readers. Bytes -> a temporary .h5 file -> read_points, read_targets
// and read_result. Rejecting the input with an mlfma2d::Error is fine; what the readers accept
// must be well formed (equal lengths, at least one point, finite values).
//
// libhdf5 itself is not instrumented for coverage (it is the Debian package), so the fuzzer is
// guided by our code only; ASan still sees its heap through the malloc interceptors, and a crash
// inside libhdf5 is reported like any other (docs/fuzzing.md). Memory that libhdf5 itself loses
// while failing to decode a corrupt file is suppressed by the API call it happens in
// (fuzz/lsan-hdf5.supp); identifiers that our code leaves open are caught here instead: after
// every input, each kind of HDF5 identifier must be back to its count before the first input.
#include <hdf5.h>

#include <cstdint>
#include <cstdlib>

#include "fuzz/fuzz_common.hpp"
#include "mlfma2d/io.hpp"

namespace {

// Open identifiers of every kind that our readers create.
std::vector<ssize_t> open_ids() {
  std::vector<ssize_t> counts;
  for (H5I_type_t type :
       {H5I_FILE, H5I_GROUP, H5I_DATATYPE, H5I_DATASPACE, H5I_DATASET, H5I_ATTR, H5I_GENPROP_LST}) {
    hsize_t n = 0;
    if (H5Inmembers(type, &n) < 0) n = 0;  // fails while no identifier of the kind was ever made
    counts.push_back(static_cast<ssize_t>(n));
  }
  return counts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = mlfma2d::fuzz::write_input(data, size, ".h5");
  static const std::vector<ssize_t> baseline = [] {
    H5open();  // the library's own identifiers (predefined types, default lists) exist from here
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return open_ids();
  }();
  mlfma2d::fuzz::read_all(
      path, [](const mlfma2d::PointSet&) {}, [](const mlfma2d::ResultFile&) {});
  mlfma2d::fuzz::check(open_ids() == baseline);
  return 0;
}
