// The device as nearfield/device.hpp declares it, in a CUDA build.
#include "nearfield/device.hpp"

#include <atomic>

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

namespace {
std::atomic<int> chosen{-1};  // device::select's index, -1: none
}  // namespace

int count() {
  return cuda_device_count(nullptr);
}

void select(int index) {
  const int n = count();
  if (index < 0 || index >= n)
    throw InvalidInput("device " + std::to_string(index) + " asked for, but " + std::to_string(n) +
                       " CUDA device(s) are visible");
  chosen = index;
  cuda::set_device(index);
}

void use_selected() {
  const int index = chosen;
  if (index >= 0) cuda::set_device(index);
}

int selected() {
  return chosen;
}

void start_runtime() {
  use_selected();
  cuda::start_runtime();
}

std::string name() {
  if (!usable(nullptr)) return "";
  try {
    use_selected();
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
