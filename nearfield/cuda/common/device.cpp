// The device as nearfield/device.hpp declares it, in a CUDA build.
#include "nearfield/device.hpp"
#include "mlfma2d/errors.hpp"
#include "nearfield/cuda/common/charge_io.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"

namespace mlfma2d::device {

bool compiled() {
  return true;
}

bool usable(std::string* why) {
  static const auto answer = [] {
    std::string reason;
    const bool ok = cuda_device_count(&reason) > 0;
    return std::make_pair(ok, reason);
  }();
  if (why) *why = answer.second;
  return answer.first;
}

void start_runtime() {
  cuda::start_runtime();
}

std::string name() {
  if (!usable(nullptr)) return "";
  try {
    return cuda::device_name();
  } catch (const Error&) {
    return "";
  }
}

void reserve_charge_buffers(const ChargeShape& shape) {
  cuda::ChargeIo::reserve(shape);
}

void release_reserved() noexcept {
  cuda::release_reserved_pinned();
}

}  // namespace mlfma2d::device
