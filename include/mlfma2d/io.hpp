#pragma once
/// \file io.hpp
/// Reading and writing point sets and results (HDF5 and CSV), and the PEC point-set generators.
/// Every failure throws IoError (file problems, malformed data) or InvalidInput (bad values),
/// with a message naming the file, dataset, row and column.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"

namespace mlfma2d {

/// \brief Sources with charges, and optional separate targets.
struct PointSet {
  std::vector<double> x, y, q;    ///< sources and their charges (equal lengths)
  std::vector<double> tx, ty;     ///< separate targets; both empty = targets are the sources
  bool has_targets() const { return !tx.empty() || !ty.empty(); }
};

/// \brief Format chosen from a file name: ".h5"/".hdf5" = HDF5, ".csv" = CSV.
enum class FileFormat { Hdf5, Csv };
/// Throws InvalidInput for any other extension.
FileFormat format_of(const std::string& path);

/// \brief Read sources (and targets, if present) from HDF5 (/sources/x,y,q; /targets/x,y) or
/// CSV (header "x,y,q"; blank lines and lines starting with '#' ignored; CRLF accepted).
/// Validates: equal lengths, at least one source, finite values.
PointSet read_points(const std::string& path);
/// \brief Read targets only: HDF5 /targets/x,y (or /sources/x,y if no /targets), or CSV "x,y"
/// (a "q" column, if present, is ignored).
void read_targets(const std::string& path, std::vector<double>* tx, std::vector<double>* ty);

/// \brief Write a point set (HDF5 or CSV by extension), atomically (temporary file + rename).
void write_points(const std::string& path, const PointSet& points);

/// \brief An attribute value for result files: a number or a string.
struct AttrValue {
  bool is_string = false;
  double number = 0;
  std::string text;
  AttrValue() = default;
  AttrValue(double v) : number(v) {}                                          // NOLINT
  AttrValue(const std::string& s) : is_string(true), text(s) {}               // NOLINT
  AttrValue(const char* s) : is_string(true), text(s) {}                      // NOLINT
};

/// \brief Evaluation output to write.
struct ResultFile {
  std::vector<double> tx, ty;                  ///< target coordinates (written to CSV only)
  std::vector<double> potential;               ///< /potential
  std::vector<double> field_x, field_y;        ///< /field/x, /field/y if non-empty
  std::map<std::string, AttrValue> attributes; ///< parameters, tree figures, timings (HDF5 root
                                               ///< attributes; CSV: "# key = value" lines)
};

/// \brief Write results (HDF5 or CSV "x,y,potential[,field_x,field_y]") atomically: the data go
/// to a temporary file in the same folder, renamed onto `path` only when complete.
void write_result(const std::string& path, const ResultFile& result);

/// \brief Read back /potential (and /field/x,y if present) from a result file written above.
ResultFile read_result(const std::string& path);

/// \brief The PEC point-set shapes generate_points knows.
std::vector<std::string> point_set_shapes();

/// \brief Generate n points of a named shape with charges q uniform in [0, 1), deterministic
/// for a seed. Shapes: "uniform" (unit square plate, the papers' case), "disk", "lshape",
/// "circle" (contour), "ellipse" (contour), "strips" (two parallel strips), "clusters"
/// (Gaussian clusters). Throws InvalidInput for an unknown shape (listing the valid ones) or n < 1.
PointSet generate_points(const std::string& shape, std::size_t n, std::uint64_t seed = 1);

}  // namespace mlfma2d
