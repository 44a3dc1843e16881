#include "densities.hpp"

#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"

namespace mlfma2d_python {

namespace {

// A shape as Python prints it: (100,), (3, 100).
std::string shape_text(const std::vector<py::ssize_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string shape_text(const CArray& a) {
  return shape_text(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
}

// InvalidInput with the function's name first, where there is one.
[[noreturn]] void invalid(const char* context, const std::string& message) {
  throw mlfma2d::InvalidInput(*context ? std::string(context) + ": " + message : message);
}

// One strength array (q or d): 1-D or 2-D, rows of n. `what` names its values in the Solver's
// message ("charges"), which keeps the words it had before dipoles; direct_sum keeps its own.
CArray strengths(py::handle obj, const char* name, const char* what, std::size_t n,
                 const char* context) {
  CArray a = real_array(obj, name, 1, 2);
  const std::size_t got = std::size_t(a.shape(a.ndim() - 1));
  if (got == n) return a;
  if (*context)
    invalid(context, std::string("source x, y and ") + name + " must have equal lengths");
  throw mlfma2d::InvalidInput("expected " + std::to_string(n) + " " + what +
                              (a.ndim() == 2 ? " per row" : "") + ", got " + std::to_string(got));
}

// (rows, m) for 2-D strengths, (m,) for 1-D ones.
std::vector<py::ssize_t> output_shape(bool two_d, std::size_t rows, std::size_t m) {
  if (two_d) return {py::ssize_t(rows), py::ssize_t(m)};
  return {py::ssize_t(m)};
}

}  // namespace

mlfma2d::Densities SourceArrays::at(std::size_t first, std::size_t n) const {
  mlfma2d::Densities in;
  if (q) in.charges = q->data() + first * n;
  if (d) in.dipole_strengths = d->data() + first * n;
  if (v) in.dipole_vectors = v->data() + (vectors_per_row ? first * 2 * n : 0);
  in.vectors_per_density = vectors_per_row;
  return in;
}

SourceArrays source_arrays(py::handle q, py::handle d, py::handle v, const Kinds& kinds,
                           std::size_t n, int densities, const char* context) {
  SourceArrays s;
  if (kinds.charges) s.q = strengths(q, "q", "charges", n, context);
  if (kinds.dipoles) s.d = strengths(d, "dipole_strengths", "dipole strengths", n, context);
  // The first given names the shape the other must share.
  const CArray& lead = kinds.charges ? *s.q : *s.d;
  const char* lead_name = kinds.charges ? "q" : "dipole_strengths";
  if (kinds.charges && kinds.dipoles && shape_text(*s.q) != shape_text(*s.d))
    invalid(context, "q and dipole_strengths differ in shape: " + shape_text(*s.q) + " and " +
                         shape_text(*s.d));
  s.two_d = lead.ndim() == 2;
  s.rows = s.two_d ? std::size_t(lead.shape(0)) : 1;
  // nd > 1: exactly nd rows. nd = 1 takes any number (a batch), as before densities.
  if (densities > 1 && (!s.two_d || s.rows != std::size_t(densities))) {
    invalid(context, std::string(lead_name) + " must have shape " +
                         shape_text({densities, py::ssize_t(n)}) +
                         " (densities=" + std::to_string(densities) + "), got " + shape_text(lead));
  }
  if (kinds.dipoles) {
    s.v = real_array(v, "dipole_vectors", 2, 3);
    const std::vector<py::ssize_t> shared{2, py::ssize_t(n)},
        per_row{py::ssize_t(s.rows), 2, py::ssize_t(n)};
    const std::string got = shape_text(*s.v);
    s.vectors_per_row = s.v->ndim() == 3;
    if (got != shape_text(shared) && got != shape_text(per_row)) {
      invalid(context, "dipole_vectors must have shape " + shape_text(shared) + " or " +
                           shape_text(per_row) + ", got " + got);
    }
  }
  return s;
}

OutputArrays::OutputArrays(const Kinds& kinds, bool two_d, std::size_t rows, std::size_t m)
    : potential(output_shape(two_d, rows, m)) {
  const std::vector<py::ssize_t> shape = output_shape(two_d, rows, m);
  if (kinds.field) {
    field_x = CArray(shape);
    field_y = CArray(shape);
  }
  if (kinds.hessian) {
    hessian_xx = CArray(shape);
    hessian_xy = CArray(shape);
    hessian_yy = CArray(shape);
  }
}

mlfma2d::Outputs OutputArrays::at(std::size_t first, std::size_t m) {
  // Outputs not asked for: null pointers to the library.
  const auto row = [&](std::optional<CArray>& a) {
    return a ? a->mutable_data() + first * m : nullptr;
  };
  mlfma2d::Outputs out;
  out.potential = potential.mutable_data() + first * m;
  out.field_x = row(field_x);
  out.field_y = row(field_y);
  out.hessian_xx = row(hessian_xx);
  out.hessian_xy = row(hessian_xy);
  out.hessian_yy = row(hessian_yy);
  return out;
}

py::object OutputArrays::result(const Kinds& kinds) const {
  const auto or_none = [](const std::optional<CArray>& a) {
    return a ? py::object(*a) : py::object(py::none());
  };
  if (kinds.hessian)
    return py::make_tuple(potential, or_none(field_x), or_none(field_y), *hessian_xx, *hessian_xy,
                          *hessian_yy);
  if (kinds.field) return py::make_tuple(potential, *field_x, *field_y);
  return potential;
}

}  // namespace mlfma2d_python
