#include "arrays.hpp"

#include <memory>

#include "mlfma2d/errors.hpp"

namespace mlfma2d_python {

namespace {

// A NumPy array of whatever dtype `obj` holds (lists become arrays), before any cast.
py::array as_any_array(py::handle obj, const char* name) {
  // NumPy would make None a 0-D object array; say what it is instead.
  if (obj.is_none())
    throw py::type_error(std::string(name) + " must be an array of real numbers, got None");
  py::array a = py::array::ensure(obj);
  if (!a) {
    PyErr_Clear();
    throw py::type_error(std::string(name) + " must be an array of real numbers, got " +
                         std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  }
  const char kind = a.dtype().kind();
  // b: bool, i/u: integers, f: floating. Complex ('c') is refused: a cast to float64 would drop
  // the imaginary part without an error.
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f') {
    throw py::type_error(std::string(name) + " must be an array of real numbers, got dtype " +
                         std::string(py::str(a.dtype())));
  }
  return a;
}

void require_rank(const py::array& a, const char* name, int min_ndim, int max_ndim) {
  const int nd = int(a.ndim());
  if (nd >= min_ndim && nd <= max_ndim) return;
  std::string want = min_ndim == max_ndim
                         ? std::to_string(min_ndim) + "-D"
                         : std::to_string(min_ndim) + "-D or " + std::to_string(max_ndim) + "-D";
  throw mlfma2d::InvalidInput(std::string(name) + " must be a " + want + " array, got " +
                              std::to_string(nd) + "-D");
}

}  // namespace

CArray real_array(py::handle obj, const char* name, int min_ndim, int max_ndim) {
  py::array a = as_any_array(obj, name);
  require_rank(a, name, min_ndim, max_ndim);
  // forcecast: int -> float64 is wanted here (the kind was checked above). Already float64 in C
  // order: the same array comes back, no copy.
  return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
}

std::vector<double> to_vector(py::handle obj, const char* name) {
  py::array a = as_any_array(obj, name);
  require_rank(a, name, 1, 1);
  // Any strides: read in place when float64; other dtypes are cast first.
  auto f = py::array_t<double, py::array::forcecast>::ensure(a);
  const auto r = f.unchecked<1>();
  std::vector<double> v(std::size_t(r.shape(0)));
  for (py::ssize_t i = 0; i < r.shape(0); ++i) v[std::size_t(i)] = r(i);
  return v;
}

std::vector<std::size_t> to_indices(py::handle obj, const char* name) {
  py::array a = py::array::ensure(obj);
  if (!a || (a.dtype().kind() != 'i' && a.dtype().kind() != 'u')) {
    PyErr_Clear();
    throw py::type_error(std::string(name) + " must be an array of integer indices");
  }
  require_rank(a, name, 1, 1);
  auto i64 = py::array_t<std::int64_t, py::array::forcecast>::ensure(a);
  const auto r = i64.unchecked<1>();
  std::vector<std::size_t> v(std::size_t(r.shape(0)));
  for (py::ssize_t i = 0; i < r.shape(0); ++i) {
    if (r(i) < 0)
      throw mlfma2d::InvalidInput(std::string(name) + ": index " + std::to_string(r(i)) +
                                  " is negative");
    v[std::size_t(i)] = std::size_t(r(i));
  }
  return v;
}

py::array_t<double> to_numpy(std::vector<double>&& v) {
  auto owner = std::make_unique<std::vector<double>>(std::move(v));
  const py::ssize_t n = py::ssize_t(owner->size());
  double* data = owner->data();
  py::capsule free_when_done(owner.get(),
                             [](void* p) { delete static_cast<std::vector<double>*>(p); });
  owner.release();
  return py::array_t<double>({n}, {py::ssize_t(sizeof(double))}, data, free_when_done);
}

bool to_vector_pair(py::handle pair, const char* name, std::vector<double>* first,
                    std::vector<double>* second) {
  if (pair.is_none()) return false;
  if (!PySequence_Check(pair.ptr()) || PySequence_Size(pair.ptr()) != 2) {
    PyErr_Clear();  // PySequence_Size sets an error for objects without a length
    throw mlfma2d::InvalidInput(std::string(name) + " must be a pair (x, y) of 1-D arrays or None");
  }
  const auto items = py::reinterpret_borrow<py::sequence>(pair);
  *first = to_vector(items[0], (std::string(name) + "[0]").c_str());
  *second = to_vector(items[1], (std::string(name) + "[1]").c_str());
  return true;
}

}  // namespace mlfma2d_python
