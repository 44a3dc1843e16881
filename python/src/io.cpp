// Point-set and result files (HDF5 by ".h5"/".hdf5", CSV by ".csv") and the point-set generators.
// File operations run through without_gil() (bindings.hpp): the GIL released, one at a time.
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "fields.hpp"
#include "mlfma2d/io.hpp"

namespace mlfma2d_python {

namespace {

py::object pair_or_none(std::vector<double>&& a, std::vector<double>&& b) {
  if (a.empty() && b.empty()) return py::none();
  return py::make_tuple(to_numpy(std::move(a)), to_numpy(std::move(b)));
}

// (x, y, q, targets) with targets = (tx, ty) or None: the fields of mlfma2d.PointSet.
py::tuple point_set_tuple(mlfma2d::PointSet&& p) {
  return py::make_tuple(to_numpy(std::move(p.x)), to_numpy(std::move(p.y)),
                        to_numpy(std::move(p.q)), pair_or_none(std::move(p.tx), std::move(p.ty)));
}

mlfma2d::AttrValue attribute(const std::string& key, py::handle value) {
  if (py::isinstance<py::str>(value)) return mlfma2d::AttrValue(value.cast<std::string>());
  // bool is an int in Python; numbers of any kind (int, float, NumPy scalars) become doubles.
  if (PyNumber_Check(value.ptr()) && !PyComplex_Check(value.ptr())) {
    return mlfma2d::AttrValue(py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>());
  }
  throw mlfma2d::InvalidInput("attribute '" + key + "' must be a number or a string, got " +
                              std::string(py::str(py::type::handle_of(value).attr("__name__"))));
}

}  // namespace

std::mutex& file_mutex() {
  static std::mutex m;
  return m;
}

void bind_io(py::module_& m) {
  m.def("format_of", [](const std::string& path) {
    return mlfma2d::format_of(path) == mlfma2d::FileFormat::Hdf5 ? "hdf5" : "csv";
  });
  m.def("read_points", [](const std::string& path) {
    return point_set_tuple(without_gil([&] { return mlfma2d::read_points(path); }));
  });
  m.def("read_targets", [](const std::string& path) {
    std::vector<double> tx, ty;
    without_gil([&] { mlfma2d::read_targets(path, &tx, &ty); });
    return py::make_tuple(to_numpy(std::move(tx)), to_numpy(std::move(ty)));
  });
  m.def("write_points",
        [](const std::string& path, py::handle x, py::handle y, py::handle q, py::handle targets) {
          mlfma2d::PointSet p;
          p.x = to_vector(x, "x");
          p.y = to_vector(y, "y");
          p.q = to_vector(q, "q");
          to_vector_pair(targets, "targets", &p.tx, &p.ty);
          without_gil([&] { mlfma2d::write_points(path, p); });
        });
  m.def("write_result", [](const std::string& path, py::handle potential, py::handle field,
                           py::handle targets, const py::dict& attributes) {
    mlfma2d::ResultFile r;
    r.potential = to_vector(potential, "potential");
    to_vector_pair(field, "field", &r.field_x, &r.field_y);
    to_vector_pair(targets, "targets", &r.tx, &r.ty);
    for (auto item : attributes) {
      const std::string key = py::str(item.first);
      r.attributes[key] = attribute(key, item.second);
    }
    without_gil([&] { mlfma2d::write_result(path, r); });
  });
  // (potential, field, targets, attributes); field and targets are pairs or None.
  m.def("read_result", [](const std::string& path) {
    mlfma2d::ResultFile r = without_gil([&] { return mlfma2d::read_result(path); });
    py::dict attributes;
    for (const auto& [key, value] : r.attributes) {
      if (value.is_string) {
        attributes[key.c_str()] = value.text;
      } else {
        attributes[key.c_str()] = value.number;
      }
    }
    return py::make_tuple(to_numpy(std::move(r.potential)),
                          pair_or_none(std::move(r.field_x), std::move(r.field_y)),
                          pair_or_none(std::move(r.tx), std::move(r.ty)), attributes);
  });
  m.def("point_set_shapes", &mlfma2d::point_set_shapes);
  m.def("generate_points", [](py::handle shape_arg, py::handle n_arg, py::handle seed_arg) {
    // Taken as objects and signed, so that a value of the wrong type or sign gets the module's
    // message, not a pybind11 overload error.
    const auto shape = cast_argument<std::string>(shape_arg, "generate_points: shape");
    const auto n = cast_argument<long long>(n_arg, "generate_points: n");
    const auto seed = cast_argument<long long>(seed_arg, "generate_points: seed");
    if (n < 0)
      throw mlfma2d::InvalidInput("generate_points: n must be at least 1, got " +
                                  std::to_string(n));
    if (seed < 0)
      throw mlfma2d::InvalidInput("generate_points: seed must be >= 0, got " +
                                  std::to_string(seed));
    return point_set_tuple(without_gil(
        [&] { return mlfma2d::generate_points(shape, std::size_t(n), std::uint64_t(seed)); }));
  });
}

}  // namespace mlfma2d_python
