#pragma once
// What this machine's CPU is, as /proc/cpuinfo names it.
#include <string>

namespace mlfma2d {

/// The CPU's model name ("AMD EPYC 9654 96-Core Processor"), read once per process; "" where it
/// is not known.
const std::string& cpu_model_name();

}  // namespace mlfma2d
