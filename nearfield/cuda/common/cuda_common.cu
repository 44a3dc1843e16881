// CUDA runtime helpers: checked calls, device queries, RAII buffers, streams and event timers.
#include <cuda_runtime.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mlfma2d/errors.hpp"
#include "nearfield/cuda/common/cuda_common.hpp"

namespace mlfma2d {

// Declared where it is used (nearfield/registry.cpp). With the static CUDA runtime, a missing
// driver library (libcuda.so) is reported by cudaGetDeviceCount as an error code, not a crash: say
// so and return 0.
int cuda_device_count(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the (non-sticky) error so later calls start clean
    if (why) {
      *why = std::string("no usable CUDA device: cudaGetDeviceCount: ") + cudaGetErrorName(e) +
             ": " + cudaGetErrorString(e);
      if (e == cudaErrorInsufficientDriver) *why += " (is the NVIDIA driver installed?)";
    }
    return 0;
  }
  if (count == 0 && why) *why = "no CUDA device found";
  if (count > 0 && why) why->clear();
  return count;
}

namespace cuda {

namespace {
cudaStream_t stream_of(const Stream& s) {
  return static_cast<cudaStream_t>(s.handle());
}
}  // namespace

void check_cuda(int code, const char* call, const char* file, int line) {
  if (code == static_cast<int>(cudaSuccess)) return;
  const auto e = static_cast<cudaError_t>(code);
  throw CudaError(std::string(call) + " failed: " + cudaGetErrorName(e) + ": " +
                  cudaGetErrorString(e) + " (" + file + ":" + std::to_string(line) + ")");
}

void check_launch(const char* kernel, const char* file, int line) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    check_cuda(static_cast<int>(e), (std::string("launch of ") + kernel).c_str(), file, line);
  }
}

void start_runtime() {
  static std::once_flag once;
  static cudaError_t status = cudaSuccess;
  std::call_once(once, [] {
    // Before the context exists: later it cannot be changed (and need not be: then it is ours).
    const cudaError_t flags = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    if (flags != cudaSuccess) cudaGetLastError();
    status = cudaFree(nullptr);  // creates the context
  });
  MLFMA2D_CUDA_CHECK(status);
}

void set_device(int index) {
  MLFMA2D_CUDA_CHECK(cudaSetDevice(index));
}

void device_memory(std::size_t* free_bytes, std::size_t* total_bytes) {
  std::size_t f = 0, t = 0;
  MLFMA2D_CUDA_CHECK(cudaMemGetInfo(&f, &t));
  if (free_bytes) *free_bytes = f;
  if (total_bytes) *total_bytes = t;
}

std::string device_name() {
  // Asked once per process and device: cudaGetDeviceProperties fills every property, which
  // takes milliseconds, and the cost model asks for the name at every Solver's construction.
  static std::mutex m;
  static std::vector<std::string> names;
  int dev = 0;
  MLFMA2D_CUDA_CHECK(cudaGetDevice(&dev));
  const std::lock_guard<std::mutex> lock(m);
  if (names.size() <= std::size_t(dev)) names.resize(std::size_t(dev) + 1);
  if (names[dev].empty()) {
    cudaDeviceProp prop{};
    MLFMA2D_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    names[dev] = std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
                 std::to_string(prop.minor) + ")";
  }
  return names[dev];
}

// --- Buffers
namespace {
std::mutex reserve_mutex;
std::vector<std::pair<std::size_t, void*>> reserved;  // pinned blocks made ahead: (bytes, ptr)

void* take_reserved(std::size_t bytes) {
  const std::lock_guard<std::mutex> lock(reserve_mutex);
  for (auto it = reserved.begin(); it != reserved.end(); ++it) {
    if (it->first != bytes) continue;
    void* ptr = it->second;
    reserved.erase(it);
    return ptr;
  }
  return nullptr;
}
}  // namespace

void* allocate(Memory memory, std::size_t bytes) {
  void* ptr = nullptr;
  if (memory == Memory::Device) {
    MLFMA2D_CUDA_CHECK(cudaMalloc(&ptr, bytes));
  } else if (!(ptr = take_reserved(bytes))) {
    MLFMA2D_CUDA_CHECK(cudaMallocHost(&ptr, bytes));
  }
  return ptr;
}

void reserve_pinned(std::size_t bytes) {
  if (bytes == 0) return;
  void* ptr = nullptr;
  MLFMA2D_CUDA_CHECK(cudaMallocHost(&ptr, bytes));
  const std::lock_guard<std::mutex> lock(reserve_mutex);
  reserved.emplace_back(bytes, ptr);
}

void release_reserved_pinned() noexcept {
  std::vector<std::pair<std::size_t, void*>> left;
  {
    const std::lock_guard<std::mutex> lock(reserve_mutex);
    left.swap(reserved);
  }
  for (const auto& [bytes, ptr] : left) cudaFreeHost(ptr);
}

void release(Memory memory, void* ptr) noexcept {
  if (!ptr) return;  // an error here is sticky anyway: nothing to report
  if (memory == Memory::Device) {
    cudaFree(ptr);
  } else {
    cudaFreeHost(ptr);
  }
}

// --- Stream
Stream::Stream() {
  cudaStream_t s = nullptr;
  MLFMA2D_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  handle_ = s;
}
Stream::~Stream() {
  if (handle_) cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
}
void Stream::synchronize() const {
  MLFMA2D_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)));
}

// --- EventTimer
EventTimer::EventTimer() {
  cudaEvent_t a = nullptr, b = nullptr;
  MLFMA2D_CUDA_CHECK(cudaEventCreate(&a));
  const cudaError_t e = cudaEventCreate(&b);
  if (e != cudaSuccess) {
    cudaEventDestroy(a);
    MLFMA2D_CUDA_CHECK(e);
  }
  start_ = a;
  stop_ = b;
}
EventTimer::~EventTimer() {
  if (start_) cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  if (stop_) cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}
void EventTimer::start(const Stream& stream) {
  MLFMA2D_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start_), stream_of(stream)));
}
void EventTimer::stop(const Stream& stream) {
  MLFMA2D_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop_), stream_of(stream)));
}
void EventTimer::synchronize() const {
  MLFMA2D_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)));
}
void EventTimer::hold(const Stream& stream) const {
  MLFMA2D_CUDA_CHECK(cudaStreamWaitEvent(stream_of(stream), static_cast<cudaEvent_t>(stop_), 0));
}
double EventTimer::seconds() const {
  synchronize();
  float ms = 0;
  MLFMA2D_CUDA_CHECK(
      cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)));
  return 1e-3 * ms;
}

// --- copies
void copy_to_device_async(void* device_dst, const void* host_src, std::size_t bytes,
                          const Stream& stream) {
  if (bytes == 0) return;
  MLFMA2D_CUDA_CHECK(
      cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, stream_of(stream)));
}
void copy_to_host_async(void* host_dst, const void* device_src, std::size_t bytes,
                        const Stream& stream) {
  if (bytes == 0) return;
  MLFMA2D_CUDA_CHECK(
      cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, stream_of(stream)));
}

}  // namespace cuda
}  // namespace mlfma2d
