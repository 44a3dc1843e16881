#pragma once
// The library's public structs in Python, field by field from the library's tables
// (mlfma2d/fields.hpp): to_dict() turns a struct into a dict (Solver.stats, .timings, .options,
// backends(), a solution's parts), bind_fields() gives a class one read-only attribute per field,
// from_dict() fills Options, the solve's settings and ContourShape from keyword arguments. A new
// field reaches Python by its row in the library's table, nothing here (python/tests/test_api.py
// and test_solve.py compare the names with the headers).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <type_traits>
#include <vector>

#include "arrays.hpp"
#include "mlfma2d/errors.hpp"
#include "mlfma2d/fields.hpp"

namespace mlfma2d_python {

namespace py = pybind11;

template <class T>
py::dict to_dict(const T& value, bool arrays = false);

/// \brief A field's value for Python: a struct as a dict, a list of structs as a list of dicts.
/// With `arrays` (a solution's data) numbers per panel or conductor are NumPy arrays and lists of
/// rows 2-D arrays; without (settings, figures) they are lists.
template <class T>
py::object to_python(const T& value, bool arrays) {
  if constexpr (mlfma2d::has_fields_v<T>) {
    return to_dict(value, arrays);
  } else if constexpr (mlfma2d::is_list_v<T>) {
    using E = typename T::value_type;
    if constexpr (mlfma2d::has_fields_v<E>) {
      py::list l;
      for (const E& e : value) l.append(to_dict(e, arrays));
      return l;
    } else if constexpr (std::is_same_v<E, std::vector<double>>) {
      return arrays ? py::object(matrix(value)) : py::cast(value);
    } else if constexpr (std::is_arithmetic_v<E> && !std::is_same_v<E, bool>) {
      return arrays ? py::object(copy_to_numpy(value)) : py::cast(value);
    } else {
      return py::cast(value);
    }
  } else {
    return py::cast(value);
  }
}

/// \brief Every field of `value` in a dict, in declaration order (to_python() for the values).
template <class T>
py::dict to_dict(const T& value, bool arrays) {
  py::dict d;
  mlfma2d::for_each_field(
      value, [&](const auto& field, const auto& v) { d[field.name] = to_python(v, arrays); });
  return d;
}

/// \brief One read-only attribute per field of S on `cls`, a class holding an S in `.*held`;
/// each read converts (a copy, arrays as NumPy).
template <class S, class C>
void bind_fields(py::class_<C>& cls, S C::*held) {
  mlfma2d::FieldTable<S>::visit([&](const auto& field) {
    const auto member = field.member;
    cls.def_property_readonly(
        field.name, [held, member](const C& c) { return to_python(c.*held.*member, true); },
        field.description);
  });
}

// What a field of type T accepts, for the message when a value does not fit.
template <class T>
const char* kind_of() {
  if constexpr (std::is_same_v<T, bool>) return "True or False";
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  if constexpr (std::is_same_v<T, std::vector<double>>) return "a list of numbers";
  if constexpr (std::is_floating_point_v<T>) return "a number";
  if constexpr (std::is_unsigned_v<T>) return "an integer >= 0";
  return "an integer";
}

/// \brief `value` as a T, or InvalidInput "<name> must be <kind>, got <repr>" where it is not
/// one: the module's message instead of pybind11's "incompatible function arguments".
template <class T>
T cast_argument(py::handle value, const std::string& name) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw mlfma2d::InvalidInput(name + " must be " + kind_of<T>() + ", got " +
                                std::string(py::repr(value)));
  }
}

// A field a keyword sets: a value, not a nested struct (the solve's `fmm` is a dict of its own).
template <class T>
constexpr bool is_keyword = !mlfma2d::has_fields_v<T>;

/// \brief `base` with the keys of `given` set. An unknown key, or a value its field cannot
/// hold, throws InvalidInput naming the `what` ("option", "parameter").
template <class T>
T from_dict(const py::dict& given, T base, const char* what = "option") {
  for (auto item : given) {
    const std::string key = py::str(item.first);
    bool known = false;
    mlfma2d::for_each_field(base, [&](const auto& field, auto& value) {
      known = known || (is_keyword<std::decay_t<decltype(value)>> && key == field.name);
    });
    if (!known) throw mlfma2d::InvalidInput("unknown " + std::string(what) + " '" + key + "'");
  }
  mlfma2d::for_each_field(base, [&](const auto& field, auto& value) {
    using F = std::decay_t<decltype(value)>;
    if constexpr (is_keyword<F>) {
      if (given.contains(field.name)) {
        value = cast_argument<F>(given[field.name], std::string(what) + " " + field.name);
      }
    }
  });
  return base;
}

/// \brief The rows of S's table as (name, unit, description) tuples.
template <class S>
py::list field_rows() {
  py::list rows;
  mlfma2d::FieldTable<S>::visit([&](const auto& field) {
    rows.append(py::make_tuple(field.name, field.unit, field.description));
  });
  return rows;
}

/// \brief Every table by its struct's name (_core.FIELDS): the package builds its record types
/// (Panels, LineMode, ...) from them and the tests compare them with what Python sees.
inline py::dict field_tables() {
  using namespace mlfma2d;
  py::dict d;
  d["Options"] = field_rows<Options>();
  d["Timings"] = field_rows<Timings>();
  d["TreeStats"] = field_rows<TreeStats>();
  d["CapacityCandidate"] = field_rows<CapacityCandidate>();
  d["AutoChoice"] = field_rows<AutoChoice>();
  d["BackendInfo"] = field_rows<BackendInfo>();
  d["ErrorNorms"] = field_rows<ErrorNorms>();
  d["ElectrostaticOptions"] = field_rows<ElectrostaticOptions>();
  d["Panels"] = field_rows<Panels>();
  d["SolveStats"] = field_rows<SolveStats>();
  d["ElectrostaticTimings"] = field_rows<ElectrostaticTimings>();
  d["LineMode"] = field_rows<LineMode>();
  d["LineParameters"] = field_rows<LineParameters>();
  d["MeshLevel"] = field_rows<MeshLevel>();
  d["ElectrostaticSolution"] = field_rows<ElectrostaticSolution>();
  d["FieldAtTargets"] = field_rows<FieldAtTargets>();
  d["ContourShape"] = field_rows<ContourShape>();
  return d;
}

/// \brief Options with the keys of `given` set; the others keep the library's defaults.
inline mlfma2d::Options options_from_dict(const py::dict& given) {
  return from_dict(given, mlfma2d::Options{});
}

}  // namespace mlfma2d_python
