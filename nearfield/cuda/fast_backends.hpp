#pragma once
// Constructors of the 'shared' back end in its experimental block layouts, for the benchmark
// (bench/bench.cpp compares them). The registered name 'shared' is SharedMode::kGroups.
#include <memory>

#include "nearfield/backend.hpp"
#include "nearfield/cuda/fast_layout.hpp"

namespace mlfma2d {

std::unique_ptr<NearFieldBackend> make_shared_backend(cuda::SharedMode mode);

}  // namespace mlfma2d
