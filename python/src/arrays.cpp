#include "arrays.hpp"

#include <climits>
#include <cstdint>
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

std::vector<std::int64_t> to_int64(py::handle obj, const char* name, bool allow_bool,
                                   const char* kind_name) {
  py::array a = py::array::ensure(obj);
  const char kind = a ? a.dtype().kind() : 0;
  if (!a || (kind != 'i' && kind != 'u' && !(allow_bool && kind == 'b'))) {
    PyErr_Clear();
    throw py::type_error(std::string(name) + " must be an array of " + kind_name);
  }
  require_rank(a, name, 1, 1);
  if (kind == 'u' && a.dtype().itemsize() == 8) {  // uint64 above 2^63 would wrap silently
    const auto u = py::array_t<std::uint64_t>::ensure(a).unchecked<1>();
    for (py::ssize_t i = 0; i < u.shape(0); ++i) {
      if (u(i) > std::uint64_t(INT64_MAX))
        throw mlfma2d::InvalidInput(std::string(name) + "[" + std::to_string(i) +
                                    "] = " + std::to_string(u(i)) + " is too large");
    }
  }
  auto i64 = py::array_t<std::int64_t, py::array::forcecast>::ensure(a);
  const auto r = i64.unchecked<1>();
  std::vector<std::int64_t> v(std::size_t(r.shape(0)));
  for (py::ssize_t i = 0; i < r.shape(0); ++i) v[std::size_t(i)] = r(i);
  return v;
}

std::vector<int> to_int(py::handle obj, const char* name, bool allow_bool) {
  const std::vector<std::int64_t> w = to_int64(obj, name, allow_bool);
  std::vector<int> v(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] < INT_MIN || w[i] > INT_MAX)
      throw mlfma2d::InvalidInput(std::string(name) + "[" + std::to_string(i) +
                                  "] = " + std::to_string(w[i]) + " is out of range");
    v[i] = int(w[i]);
  }
  return v;
}

std::vector<std::size_t> to_indices(py::handle obj, const char* name) {
  const std::vector<std::int64_t> w = to_int64(obj, name, false, "integer indices");
  std::vector<std::size_t> v(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] < 0)
      throw mlfma2d::InvalidInput(std::string(name) + ": index " + std::to_string(w[i]) +
                                  " is negative");
    v[i] = std::size_t(w[i]);
  }
  return v;
}

py::array_t<double> matrix(const std::vector<std::vector<double>>& rows) {
  const py::ssize_t n = py::ssize_t(rows.size()),
                    m = rows.empty() ? 0 : py::ssize_t(rows[0].size());
  py::array_t<double> a({n, m});
  auto w = a.mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < n; ++i)
    for (py::ssize_t j = 0; j < m; ++j) w(i, j) = rows[std::size_t(i)].at(std::size_t(j));
  return a;
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
