#pragma once
// NumPy arrays in and out of the binding. Every array the caller passes goes through
// real_array(), the one place that checks kind, rank and size, so that every function reports a
// bad argument the same way.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mlfma2d_python {

namespace py = pybind11;

/// float64, C order: what the pointer overloads of the library read and write in place.
using CArray = py::array_t<double, py::array::c_style>;

/// \brief `obj` as float64 in C order. An array that already is one is returned as it is (no copy);
/// integers, booleans and other floating types are converted. Throws TypeError for anything that is
/// not real numbers (complex would lose its imaginary part), InvalidInput when its rank is outside
/// [min_ndim, max_ndim]. `name` is the argument's name, for the message.
CArray real_array(py::handle obj, const char* name, int min_ndim = 1, int max_ndim = 1);

/// \brief A 1-D array of real numbers copied into a std::vector (the library's constructors take
/// vectors and copy them again; this is the binding's only copy, read straight from the caller's
/// array whatever its strides).
std::vector<double> to_vector(py::handle obj, const char* name);

/// \brief A 1-D array of integers (and, with allow_bool, booleans: flags) copied into int64,
/// whatever its strides; TypeError ("<name> must be an array of <kind_name>") for other dtypes.
std::vector<std::int64_t> to_int64(py::handle obj, const char* name, bool allow_bool = false,
                                   const char* kind_name = "integers");
/// \brief The same as int, InvalidInput naming the entry for a value out of int's range.
std::vector<int> to_int(py::handle obj, const char* name, bool allow_bool = false);
/// \brief A 1-D array of non-negative integers (indices) as std::size_t; booleans refused (a mask
/// is not a list of indices).
std::vector<std::size_t> to_indices(py::handle obj, const char* name);

/// \brief A NumPy array holding a copy of `v` (integer results: offsets, indices).
template <class T>
py::array_t<T> copy_to_numpy(const std::vector<T>& v) {
  py::array_t<T> a(py::ssize_t(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

/// \brief Row-major rows as a 2-D float64 array (rows x the first row's length).
py::array_t<double> matrix(const std::vector<std::vector<double>>& rows);

/// \brief A NumPy array that owns `v`'s buffer: the library's vector results leave without a copy.
py::array_t<double> to_numpy(std::vector<double>&& v);

/// \brief A pair (x, y) of 1-D arrays, or None (`targets`, a result's field), copied into `first`
/// and `second` as to_vector() does, with the names "<name>[0]" and "<name>[1]". Returns false
/// for None (the vectors left as they are); throws InvalidInput for anything but two items.
bool to_vector_pair(py::handle pair, const char* name, std::vector<double>* first,
                    std::vector<double>* second);

}  // namespace mlfma2d_python
