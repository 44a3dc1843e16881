// A build without CUDA: the device as nearfield/device.hpp declares it (none), and the CUDA back
// ends' factories, which the registry never calls here (it reports "not compiled with CUDA").
#include "mlfma2d/errors.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/device.hpp"

namespace mlfma2d {
namespace device {

bool compiled() {
  return false;
}

bool usable(std::string* why) {
  if (why) why->clear();
  return false;
}

int count() {
  return 0;
}

void select(int) {}

void use_selected() {}

int selected() {
  return -1;
}

void start_runtime() {}

std::string name() {
  return "";
}

void reserve_charge_buffers(const ChargeShape&) {}

void release_reserved() noexcept {}

}  // namespace device

namespace {
[[noreturn]] void not_compiled() {
  throw BackendUnavailable("this build has no CUDA back ends (not compiled with CUDA)");
}
}  // namespace

std::unique_ptr<NearFieldBackend> make_indexing_backend() {
  not_compiled();
}
std::unique_ptr<NearFieldBackend> make_repetition_backend() {
  not_compiled();
}
std::unique_ptr<NearFieldBackend> make_shared_backend() {
  not_compiled();
}
std::unique_ptr<NearFieldBackend> make_repetition_gpu_backend() {
  not_compiled();
}

}  // namespace mlfma2d
