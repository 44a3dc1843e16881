#include "runtime/host.hpp"

#include <fstream>

namespace mlfma2d {

const std::string& cpu_model_name() {
  static const std::string name = [] {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("model name", 0) != 0) continue;
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string model = line.substr(colon + 1);
      model.erase(0, model.find_first_not_of(' '));
      return model;
    }
    return std::string();
  }();
  return name;
}

}  // namespace mlfma2d
