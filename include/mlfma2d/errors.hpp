#pragma once
/// \file errors.hpp
/// Typed exceptions thrown by mlfma2d. The library never aborts: every failure is one of these,
/// with a one-line message that names what is wrong and where (file, dataset, row, option).
#include <stdexcept>
#include <string>

namespace mlfma2d {

/// \brief Base of every mlfma2d exception.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// \brief A bad argument or option value (CLI exit code 2).
class InvalidInput : public Error {
 public:
  using Error::Error;
};

/// \brief A file that cannot be read or written, or malformed data in it (CLI exit code 3).
class IoError : public Error {
 public:
  using Error::Error;
};

/// \brief A back end that is unknown, not compiled in, or has no device to run on (CLI exit code
/// 2).
class BackendUnavailable : public Error {
 public:
  using Error::Error;
};

/// \brief A failure while computing: CUDA error, device memory exhausted (CLI exit code 4).
class RuntimeFailure : public Error {
 public:
  using Error::Error;
};

/// \brief A CUDA runtime error, with the call and the CUDA message (CLI exit code 4).
class CudaError : public RuntimeFailure {
 public:
  using RuntimeFailure::RuntimeFailure;
};

}  // namespace mlfma2d
