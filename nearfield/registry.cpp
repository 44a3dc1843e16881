// Back ends by name. Every name is always listed; whether it can run here is a separate question
// (compiled with CUDA? a device present?), answered with the reason.
#include <sstream>

#include "mlfma2d/mlfma2d.hpp"
#include "nearfield/backend.hpp"

namespace mlfma2d {
namespace {

bool is_gpu(const std::string& name) {
  return name == "indexing" || name == "repetition" || name == "shared" ||
         name == "repetition-gpu";
}

std::string valid_names() {
  std::ostringstream s;
  const auto names = near_field_backends();
  for (std::size_t i = 0; i < names.size(); ++i) s << (i ? ", " : "") << names[i];
  return s.str();
}

}  // namespace

std::vector<std::string> near_field_backends() {
  return {"cpu", "indexing", "repetition", "shared", "repetition-gpu"};
}

bool near_field_backend_available(const std::string& name, std::string* why) {
  auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  if (name == "cpu") return true;
  if (!is_gpu(name)) return no("unknown back end '" + name + "'; valid: " + valid_names());
#ifdef MLFMA2D_WITH_CUDA
  std::string reason;
  if (cuda_device_count(&reason) > 0) return true;
  return no("back end '" + name + "' needs a CUDA device; none was found" +
            (reason.empty() ? std::string() : " (" + reason + ")"));
#else
  return no("back end '" + name +
            "' was not compiled with CUDA (configure with a CUDA compiler, MLFMA2D_WITH_CUDA=ON)");
#endif
}

std::unique_ptr<NearFieldBackend> make_near_field_backend(const std::string& name) {
  std::string why;
  if (!near_field_backend_available(name, &why)) throw BackendUnavailable(why);
  if (name == "cpu") return make_cpu_backend();
#ifdef MLFMA2D_WITH_CUDA
  if (name == "indexing") return make_indexing_backend();
  if (name == "repetition") return make_repetition_backend();
  if (name == "shared") return make_shared_backend();
  if (name == "repetition-gpu") return make_repetition_gpu_backend();
#endif
  throw BackendUnavailable("unknown back end '" + name + "'; valid: " + valid_names());
}

}  // namespace mlfma2d
