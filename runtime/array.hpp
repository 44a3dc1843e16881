#pragma once
// Arrays of points that are not zeroed when made. A value-initialising std::vector::resize is one
// thread's work (zeroing, and faulting in every page), and a tree of 1e7 points makes a dozen such
// arrays. Array<T> leaves the elements uninitialised, the parallel loop that fills them touches
// them first, and page faults and zeroing spread over the threads.
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/threads.hpp"

namespace mlfma2d {

/// \brief std::allocator, except that construct() without arguments default-initialises (for
/// arithmetic types: leaves the memory as it is).
template <class T>
class NoInitAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() noexcept = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// \brief A vector whose resize() does not zero: every element must be written before it is read.
template <class T>
using Array = std::vector<T, NoInitAllocator<T>>;

/// Copies n elements from `from` to `to`, in parallel.
template <class T>
void parallel_copy(const T* from, std::size_t n, T* to, int threads) {
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for num_threads(team_size(threads, count)) schedule(static)
  for (std::int64_t i = 0; i < count; ++i) to[i] = from[i];
}

/// n elements copied from `from`, in parallel (the copy's first touch spread over the team).
template <class T>
Array<T> parallel_copy(const T* from, std::size_t n, int threads) {
  Array<T> to(n);
  parallel_copy(from, n, to.data(), threads);
  return to;
}

/// Sets the n elements of `a` to `value`, in parallel.
template <class T>
void parallel_fill(T* a, std::size_t n, T value, int threads) {
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for num_threads(team_size(threads, count)) schedule(static)
  for (std::int64_t i = 0; i < count; ++i) a[i] = value;
}

}  // namespace mlfma2d
