#pragma once
// An evaluation's source strengths and outputs as NumPy arrays: charges q, dipole strengths d and
// orientations v in; potential, field and Hessian out. Solver.evaluate and direct_sum take and
// give them the same way (docs/python.md, "Densities, dipoles and the Hessian").
#include <pybind11/pybind11.h>

#include <cstddef>
#include <optional>

#include "arrays.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d_python {

namespace py = pybind11;

/// \brief What an evaluation takes and gives (the Options fields of the same names).
struct Kinds {
  bool charges = true, dipoles = false, field = false, hessian = false;
};

/// \brief The caller's q, d and v, checked, each float64 in C order: the caller's own array when
/// it already is one (no copy). `rows` density vectors: 1-D q and d are one (outputs 1-D), 2-D
/// ones (rows, n) each (outputs (rows, M)).
struct SourceArrays {
  std::optional<CArray> q, d, v;  ///< those the kinds take
  bool two_d = false;
  std::size_t rows = 1;
  bool vectors_per_row = false;  ///< v of shape (rows, 2, n), else (2, n) shared by every row

  /// \brief The library's Densities from row `first` on.
  mlfma2d::Densities at(std::size_t first, std::size_t n) const;
};

/// \brief q (when kinds.charges), d and v (when kinds.dipoles) for n sources, the others ignored.
/// `densities`: the rows a pass takes (the Solver's nd), where 1 also takes any number of rows
/// (a batch, one pass each); 0: any number in one pass (direct_sum). `context`: the function, for
/// the messages ("" for the Solver). Throws InvalidInput naming the array and its shape; TypeError
/// for arrays that are not real numbers.
SourceArrays source_arrays(py::handle q, py::handle d, py::handle v, const Kinds& kinds,
                           std::size_t n, int densities, const char* context);

/// \brief New outputs for `rows` rows of m targets: (m,) each when not two_d, else (rows, m).
struct OutputArrays {
  CArray potential;
  std::optional<CArray> field_x, field_y, hessian_xx, hessian_xy, hessian_yy;  ///< as asked

  OutputArrays(const Kinds& kinds, bool two_d, std::size_t rows, std::size_t m);
  /// \brief The library's Outputs from row `first` on (rows of m).
  mlfma2d::Outputs at(std::size_t first, std::size_t m);
  /// \brief What Python gets: the potential alone; with the field (potential, ex, ey); with the
  /// Hessian (potential, ex, ey, hxx, hxy, hyy), ex and ey None without the field (the package
  /// makes it a Result).
  py::object result(const Kinds& kinds) const;
};

}  // namespace mlfma2d_python
