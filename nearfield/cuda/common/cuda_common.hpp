#pragma once
// CUDA runtime helpers for the GPU back ends, declared in plain C++ (no CUDA types) so the
// back-end classes compile with the host compiler. Every call is checked: a CUDA failure
// becomes mlfma2d::CudaError naming the call and the CUDA message. Streams and events are
// opaque handles; the definitions live in cuda_common.cu.
#include <cstddef>
#include <string>

namespace mlfma2d {
/// Number of CUDA devices visible (0 if none or the driver is missing); `why` gets the reason.
int cuda_device_count(std::string* why);
}  // namespace mlfma2d

namespace mlfma2d::cuda {

/// Throws CudaError("<call> failed: <cudaErrorName>: <message> (<file>:<line>)") unless code is
/// cudaSuccess (0). `code` is a cudaError_t passed as int to keep this header CUDA-free.
void check_cuda(int code, const char* call, const char* file, int line);

/// Check a CUDA runtime call (for use in .cu files, where cudaError_t is known).
#define MLFMA2D_CUDA_CHECK(call) \
  ::mlfma2d::cuda::check_cuda(static_cast<int>(call), #call, __FILE__, __LINE__)

/// Starts the CUDA runtime on the current device (the context, the first use's cost) with
/// blocking synchronisation: a thread waiting on the device sleeps instead of spinning on a core
/// the CPU far field needs. Idempotent; thread-safe.
void start_runtime();

/// Makes device `index` the calling thread's current device (cudaSetDevice).
void set_device(int index);

/// Free and total memory of the current device, bytes.
void device_memory(std::size_t* free_bytes, std::size_t* total_bytes);

/// "NVIDIA H100 80GB HBM3 (sm_90)" for the current device.
std::string device_name();

/// Where a Buffer lives: device memory (cudaMalloc), or page-locked host memory
/// (cudaMallocHost), from which host-to-device copies run at the link's full speed (copies from
/// pageable memory go through the driver's own staging buffer, slower).
enum class Memory { Device, Pinned };
/// Allocates `bytes` of that memory (checked: CudaError on failure); releases it (never throws).
/// Pinned memory is taken from the reserve first (a block of exactly `bytes`).
void* allocate(Memory memory, std::size_t bytes);
void release(Memory memory, void* ptr) noexcept;

/// Pinned host memory made ahead of the set-up that needs it, on a thread beside the tree:
/// the charge and potential buffers of 1e7 points took 73-108 ms of cudaMallocHost on the H100
/// host (MLFMA2D_TRACE lines "pinned buffers reserved" in results/h100/wave2b/call*-bench.log).
/// Thread-safe; release_reserved_pinned() frees what nobody took.
void reserve_pinned(std::size_t bytes);
void release_reserved_pinned() noexcept;

/// \brief An owned allocation, freed on destruction; move-only.
template <Memory kMemory>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t bytes)
      : ptr_(bytes > 0 ? allocate(kMemory, bytes) : nullptr), bytes_(bytes) {}
  ~Buffer() { release(kMemory, ptr_); }
  Buffer(Buffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      release(kMemory, ptr_);
      ptr_ = o.ptr_;
      bytes_ = o.bytes_;
      o.ptr_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};
using DeviceBuffer = Buffer<Memory::Device>;
using PinnedBuffer = Buffer<Memory::Pinned>;

/// \brief An owned CUDA stream (non-blocking w.r.t. the legacy default stream).
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  void* handle() const { return handle_; }  ///< the cudaStream_t
  void synchronize() const;

 private:
  void* handle_ = nullptr;
};

/// \brief Two CUDA events around work enqueued on a stream: device-side elapsed time.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(const Stream& stream);
  void stop(const Stream& stream);
  /// Wait until the work up to stop() has finished on the device.
  void synchronize() const;
  /// Work enqueued on `stream` from now on waits on the device until stop() has happened.
  void hold(const Stream& stream) const;
  /// Seconds between start() and stop(); waits for stop() to complete.
  double seconds() const;

 private:
  void* start_ = nullptr;
  void* stop_ = nullptr;
};

/// Enqueue an asynchronous copy on `stream` (host memory should be pinned to be asynchronous).
void copy_to_device_async(void* device_dst, const void* host_src, std::size_t bytes,
                          const Stream& stream);
void copy_to_host_async(void* host_dst, const void* device_src, std::size_t bytes,
                        const Stream& stream);

/// Check for an error of the last kernel launch (cudaGetLastError), naming the kernel.
void check_launch(const char* kernel, const char* file, int line);

}  // namespace mlfma2d::cuda
