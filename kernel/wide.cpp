// Which wide kernels run (kernel/wide.hpp): the 512-bit ones where the CPU has AVX-512 and the
// build compiled them, unless MLFMA2D_VECTOR_BITS=256.
#include "kernel/wide.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace mlfma2d {

const WideKernels& wide_kernels_256();
#ifdef MLFMA2D_HAVE_AVX512
const WideKernels& wide_kernels_512();
#endif

namespace {
bool cpu_has_avx512() {
#if defined(MLFMA2D_HAVE_AVX512) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#else
  return false;
#endif
}
}  // namespace

const WideKernels* wide_kernels_of(int bits) {
#ifdef MLFMA2D_HAVE_AVX512
  if (bits == 512) return cpu_has_avx512() ? &wide_kernels_512() : nullptr;
#endif
  if (bits == 256 || bits == wide_kernels_256().bits) return &wide_kernels_256();
  return nullptr;
}

namespace {
std::atomic<const WideKernels*>& chosen() {
  static std::atomic<const WideKernels*> k{[] {
    const char* env = std::getenv("MLFMA2D_VECTOR_BITS");
    const bool narrow = env && std::strcmp(env, "256") == 0;
    const WideKernels* wide = narrow ? nullptr : wide_kernels_of(512);
    return wide ? wide : &wide_kernels_256();
  }()};
  return k;
}
}  // namespace

const WideKernels& wide_kernels() {
  return *chosen().load(std::memory_order_relaxed);
}

bool use_wide_kernels(int bits) {
  const WideKernels* k = wide_kernels_of(bits);
  if (k) chosen().store(k, std::memory_order_relaxed);
  return k != nullptr;
}

}  // namespace mlfma2d
