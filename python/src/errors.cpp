// The library's exceptions as Python exceptions, with the same names and messages:
//   mlfma2d.Error(RuntimeError)            base of every mlfma2d failure
//   mlfma2d.InvalidInput(Error, ValueError) bad argument or data (a ValueError, as Python expects)
//   mlfma2d.IoError(Error), BackendUnavailable(Error), RuntimeFailure(Error),
//   mlfma2d.CudaError(RuntimeFailure)
#include <exception>
#include <stdexcept>
#include <string>

#include "bindings.hpp"
#include "mlfma2d/errors.hpp"

namespace mlfma2d_python {

namespace {

// Created once at import and kept for the translator (module objects live until exit).
struct PyErrors {
  PyObject* error = nullptr;
  PyObject* invalid_input = nullptr;
  PyObject* io_error = nullptr;
  PyObject* backend_unavailable = nullptr;
  PyObject* runtime_failure = nullptr;
  PyObject* cuda_error = nullptr;
} errors;

PyObject* new_error(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  // "mlfma2d.<name>": tracebacks name the public package, not the private _core.
  PyObject* type =
      PyErr_NewExceptionWithDoc((std::string("mlfma2d.") + name).c_str(), doc, bases, nullptr);
  if (!type) throw py::error_already_set();
  m.attr(name) = py::handle(type);
  return type;
}

}  // namespace

void bind_errors(py::module_& m) {
  errors.error = new_error(m, "Error", PyExc_RuntimeError, "Base of every mlfma2d exception.");
  const py::tuple invalid_bases =
      py::make_tuple(py::handle(errors.error), py::handle(PyExc_ValueError));
  errors.invalid_input = new_error(m, "InvalidInput", invalid_bases.ptr(),
                                   "A bad argument, option value or input data.");
  errors.io_error = new_error(m, "IoError", errors.error,
                              "A file that cannot be read or written, or malformed data in it.");
  errors.backend_unavailable =
      new_error(m, "BackendUnavailable", errors.error,
                "A back end that is unknown, not compiled in, or has no device to run on.");
  errors.runtime_failure = new_error(m, "RuntimeFailure", errors.error,
                                     "A failure while computing (CUDA error, device memory).");
  errors.cuda_error = new_error(m, "CudaError", errors.runtime_failure,
                                "A CUDA runtime error, with the call and the CUDA message.");

  // Most derived first: CudaError is a RuntimeFailure, every one of them an Error.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mlfma2d::CudaError& e) {
      PyErr_SetString(errors.cuda_error, e.what());
    } catch (const mlfma2d::RuntimeFailure& e) {
      PyErr_SetString(errors.runtime_failure, e.what());
    } catch (const mlfma2d::BackendUnavailable& e) {
      PyErr_SetString(errors.backend_unavailable, e.what());
    } catch (const mlfma2d::IoError& e) {
      PyErr_SetString(errors.io_error, e.what());
    } catch (const mlfma2d::InvalidInput& e) {
      PyErr_SetString(errors.invalid_input, e.what());
    } catch (const mlfma2d::Error& e) {
      PyErr_SetString(errors.error, e.what());
    }
  });

  // For the tests only: throws the C++ exception `type` with `message`, so that the translation
  // of types no CPU-only machine can provoke (CudaError, RuntimeFailure) is checked too.
  m.def("_throw", [](const std::string& type, const std::string& message) {
    if (type == "Error") throw mlfma2d::Error(message);
    if (type == "InvalidInput") throw mlfma2d::InvalidInput(message);
    if (type == "IoError") throw mlfma2d::IoError(message);
    if (type == "BackendUnavailable") throw mlfma2d::BackendUnavailable(message);
    if (type == "RuntimeFailure") throw mlfma2d::RuntimeFailure(message);
    if (type == "CudaError") throw mlfma2d::CudaError(message);
    throw std::logic_error("_throw: unknown type " + type);
  });
}

}  // namespace mlfma2d_python
