#pragma once
/// \file io.hpp
/// Reading and writing point sets and results (HDF5 and CSV), and the PEC point-set generators.
/// Every failure throws IoError (file problems, malformed data) or InvalidInput (bad values),
/// with a message naming the file, dataset, row and column.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mlfma2d/errors.hpp"

namespace mlfma2d {

/// \brief Sources with charges and/or dipoles of nd densities, and optional separate targets.
/// Arrays of nd densities are nd x N row-major (density d's value for source j at d * N + j), as
/// the Solver takes them (mlfma2d::Densities): with nd = 1, one value per source.
struct PointSet {
  std::vector<double> x, y;    ///< the N sources
  std::vector<double> q;       ///< charges: nd x N; empty when the sources carry dipoles only
  std::vector<double> tx, ty;  ///< separate targets; both empty = targets are the sources
  int densities = 1;           ///< nd: the density vectors the strengths hold (1..1024)
  std::vector<double> dipole_strengths;  ///< dipole strengths d: nd x N; empty: no dipoles
  /// Dipole orientations v: 2 x N (the x components, then the y components), shared by every
  /// density; or nd x 2 x N with vectors_per_density. The moment is d v (v need not be unit).
  std::vector<double> dipole_vectors;
  bool vectors_per_density = false;
  bool has_targets() const { return !tx.empty() || !ty.empty(); }
  bool has_charges() const { return !q.empty(); }
  bool has_dipoles() const { return !dipole_strengths.empty(); }
};

/// \brief Format chosen from a file name: ".h5"/".hdf5" = HDF5, ".csv" = CSV.
enum class FileFormat { Hdf5, Csv };
/// Throws InvalidInput for any other extension.
FileFormat format_of(const std::string& path);

/// \brief Read sources (and targets, if present) from HDF5 or CSV (docs/files.md).
/// HDF5: /sources/x, /sources/y (N); charges /sources/q, (N) or (nd, N); dipoles
/// /sources/dipole_strength, (N) or (nd, N), with /sources/dipole_vector, (2, N) or (nd, 2, N);
/// optional /targets/x, /targets/y. CSV: a header naming the columns x, y and q (nd = 1) or
/// q0..q{nd-1}, and for dipoles d or d0..d{nd-1} with vx, vy or vx0, vy0, ..., vx{nd-1},
/// vy{nd-1}, in any order; blank lines and lines starting with '#' ignored; CRLF accepted.
/// Validates: shapes that agree (one nd, N entries each), at least one source, charges or
/// dipoles, finite values. The file must be a regular file (a link to one is followed): a FIFO,
/// device or socket is refused, as it could block. HDF5 external links and external storage are
/// refused, not followed.
PointSet read_points(const std::string& path);
/// \brief Read targets only: HDF5 /targets/x,y (or /sources/x,y if no /targets), or CSV "x,y"
/// (a "q" column, if present, is ignored).
void read_targets(const std::string& path, std::vector<double>* tx, std::vector<double>* ty);

/// \brief What a point file holds, read from its header: the shapes, no values (HDF5 only).
struct PointFileShape {
  std::size_t sources = 0;  ///< N
  std::size_t targets = 0;  ///< M of /targets; 0: the file has none (the sources are the targets)
  int densities = 1;        ///< nd
  bool charges = false, dipoles = false;
  bool vectors_per_density = false;  ///< dipole orientations (nd, 2, N)
};
/// \brief The shape of an HDF5 point file, with every check read_points makes of the shapes
/// (values are not read: their checks come with them). Throws InvalidInput for a CSV file, which
/// is read whole.
PointFileShape read_point_file_shape(const std::string& path);

/// \brief Entries [first, first + count) of a point file's sources or targets.
struct PointRange {
  std::size_t first = 0, count = 0;
};
/// \brief Rank r's part of n entries over p ranks (what each process of a distributed run
/// reads of a file, or holds of a solve's unknowns): contiguous, in rank order, sizes within one
/// of each other, rounded up (rank 0 holds the first entries when there are any; the last ranks
/// hold none when n < p).
PointRange rank_part(std::size_t n, int r, int p);
/// \brief A contiguous part of an HDF5 point file, read as hyperslabs (each process of a
/// distributed run reads its own part of one file): the sources of `sources` with their
/// strengths (nd x sources.count each, as read_points gives them), and the targets of `targets`
/// from /targets (count 0: none). Checks what read_points checks; a value that is not finite is
/// named by its index in the file. Throws InvalidInput for a CSV file or a range beyond the file.
PointSet read_points(const std::string& path, const PointRange& sources, const PointRange& targets);
/// \brief The number of targets a targets file holds (HDF5: /targets/x, or /sources/x if it has
/// no /targets), from its header.
std::size_t read_target_count(const std::string& path);
/// \brief A contiguous part of a targets file (HDF5), as read_targets reads the whole.
void read_targets(const std::string& path, const PointRange& range, std::vector<double>* tx,
                  std::vector<double>* ty);

/// \brief Write a point set (HDF5 or CSV by extension, the layout read_points reads; nd = 1 as
/// 1-D datasets and the columns q, d, so that older readers read it), atomically (temporary
/// file + rename). Throws InvalidInput for arrays whose sizes disagree with N and nd.
void write_points(const std::string& path, const PointSet& points);

/// \brief An attribute value for result files: a real number, an integer or a string.
struct AttrValue {
  bool is_string = false;
  bool is_integer = false;   ///< stored as a 64-bit integer (HDF5) or a JSON integer
  double number = 0;         ///< the value (of an integer too)
  std::int64_t integer = 0;  ///< the value of an integer
  std::string text;
  AttrValue() = default;
  AttrValue(double v) : number(v) {}                             // NOLINT
  AttrValue(const std::string& s) : is_string(true), text(s) {}  // NOLINT
  AttrValue(const char* s) : is_string(true), text(s) {}         // NOLINT
  /// An integer (a count, a flag 0/1, a level).
  static AttrValue from_integer(std::int64_t v) {
    AttrValue a(static_cast<double>(v));
    a.is_integer = true;
    a.integer = v;
    return a;
  }
};

/// \brief Evaluation output to write: each value array nd x M row-major (density d's value at
/// target i at d * M + i), M targets.
struct ResultFile {
  std::vector<double> tx, ty;                   ///< target coordinates (/targets/x, /targets/y)
  std::vector<double> potential;                ///< /potential
  std::vector<double> field_x, field_y;         ///< /field/x, /field/y if non-empty
  std::map<std::string, AttrValue> attributes;  ///< parameters, tree figures, timings (HDF5 root
                                                ///< attributes; CSV: the JSON sidecar)
  /// The Hessian of phi, d2/dx2, d2/dxdy, d2/dy2: /hessian/xx, /hessian/xy, /hessian/yy if
  /// non-empty.
  std::vector<double> hessian_xx, hessian_xy, hessian_yy;
  int densities = 1;  ///< nd
};

/// \brief Write results atomically, HDF5 or CSV by extension (docs/files.md). HDF5:
/// /targets/x, /targets/y (when given), /potential, /field/x, /field/y, /hessian/xx,
/// /hessian/xy, /hessian/yy, each (M) when nd = 1 and (nd, M) otherwise, with a "description"
/// attribute (quantity and convention), and the attributes on the root group (integers as 64-bit
/// integers). CSV: the header "x,y,potential[,field_x,field_y][,hessian_xx,hessian_xy,
/// hessian_yy]" (nd > 1: potential0..potential{nd-1}, then field_x0.., field_y0.., ...) on the
/// first line, then one target a line (what numpy.loadtxt(f, delimiter=",", skiprows=1) and
/// pandas.read_csv(f) load as they are); the attributes, if any, go to the JSON sidecar
/// sidecar_path(path), written (or removed, when there are none) with the CSV.
void write_result(const std::string& path, const ResultFile& result);

/// \brief The shape of a result file written a part at a time (write_result below).
struct ResultShape {
  std::size_t targets = 0;  ///< M
  int densities = 1;        ///< nd
  bool field = false, hessian = false;
  bool coordinates = true;  ///< /targets/x, /targets/y stored (CSV: always)
  std::map<std::string, AttrValue> attributes;
};
/// \brief Writes a result of `shape` atomically, as write_result(path, ResultFile) writes it,
/// its values given a part at a time in the targets' order, so that the whole result need never
/// be in memory at once: next() gives the next targets' part (its values nd x m each, their
/// coordinates; the caller's, valid until the next call; its attributes and densities are not
/// read) or null when there are none left. HDF5 writes each part into the datasets
/// (hyperslabs), CSV appends its rows. Parts whose sizes disagree with the shape, or that do not
/// add up to shape.targets, are refused (InvalidInput; nothing is written).
void write_result(const std::string& path, const ResultShape& shape,
                  const std::function<const ResultFile*()>& next);

/// \brief Read back a result file written above: values, targets when stored, attributes (for
/// CSV from the sidecar, or from "# key = value" lines of files written before it).
ResultFile read_result(const std::string& path);

/// \brief The JSON sidecar of a CSV result: PATH.json, {"file": NAME, "attributes": {...}}.
std::string sidecar_path(const std::string& csv_path);

/// \brief One column of a table: numbers or text, with a unit.
struct TableColumn {
  std::string name;
  std::string unit;  ///< "s", "B", "pairs/s", "" (a ratio or a count)
  bool is_text = false;
  std::vector<double> numbers;     ///< one per row unless is_text
  std::vector<std::string> texts;  ///< one per row if is_text
};

/// \brief A table to write: columns of equal length, and notes about it.
struct Table {
  std::string group;  ///< HDF5: the group holding the columns, e.g. "compare"
  std::vector<TableColumn> columns;
  std::vector<std::pair<std::string, std::string>> attributes;  ///< (name, text) about the table
};

/// \brief Write a table (HDF5 or CSV by extension) atomically. HDF5: one dataset per column under
/// /GROUP (text as variable-length strings), each with a "unit" attribute, and the table's
/// attributes on the group. CSV: the header, then one row per line (numbers with 9 significant
/// digits, empty where not finite); the attributes are not written. Throws IoError.
void write_table(const std::string& path, const Table& table);

/// \brief Writes `path` atomically: `write(tmp)` fills a temporary file in the same folder, which
/// is renamed onto `path` only when `write` returns. On any failure the temporary file is removed
/// and an existing `path` is left as it was; on SIGINT, SIGTERM or SIGHUP too (a handler is
/// installed for a signal whose action is the default: it removes the temporary files, then the
/// signal takes its course). Throws IoError naming `path` (and whatever `write` throws).
void write_atomically(const std::string& path,
                      const std::function<void(const std::string& tmp)>& write);
/// \brief The same for several files that belong together: each path gets its temporary file
/// (tmps[i] for paths[i]); all are renamed when `write` returns.
void write_atomically(const std::vector<std::string>& paths,
                      const std::function<void(const std::vector<std::string>& tmps)>& write);
/// \brief Fails (IoError naming `path`) when `path` cannot be written as an output: its folder is
/// missing or read-only, or `path` exists and is not a regular file (a folder, a symbolic link, a
/// FIFO, a device: replacing it would not write what its name points to, or would destroy it).
void check_writable(const std::string& path);
/// \brief A text file, atomically.
void write_text_file(const std::string& path, const std::string& text);

/// \brief The PEC point-set shapes generate_points knows.
std::vector<std::string> point_set_shapes();

/// \brief What generate_points() gives the sources: nd densities of charges and/or dipoles.
struct GeneratedSources {
  int densities = 1;
  bool charges = true;
  bool dipoles = false;
  bool vectors_per_density = false;  ///< an orientation per source and density, not per source
};

/// \brief Bytes generate_points() needs for n points.
std::size_t generate_points_bytes(std::size_t n, const GeneratedSources& sources = {});

/// \brief Generate n points of a named shape with charges q uniform in [0, 1), deterministic
/// for a seed. Shapes: "uniform" (unit square plate, the papers' case), "disk", "lshape",
/// "circle" (contour), "ellipse" (contour), "strips" (two parallel strips), "clusters"
/// (Gaussian clusters), and the graded sets of conductor meshes: "graded-strip" (a strip's
/// cross-section, cosine-spaced toward its edges), "graded-polygon" (an L-shaped contour,
/// cosine-spaced toward its corners), "multiscale-clusters" (Gaussian clusters of widths 1e-2
/// down to 1e-8). Throws InvalidInput for an unknown shape (listing the valid ones) or n < 1.
PointSet generate_points(const std::string& shape, std::size_t n, std::uint64_t seed = 1);
/// \brief The same points (bit for bit) with the strengths `sources` asks for: density 0's
/// charges those above, the other densities' charges and the dipole strengths uniform in [0, 1)
/// too, the orientations of unit length and uniform in angle, all from a second random stream of
/// the seed (deterministic too). Throws InvalidInput for nd outside 1..1024 or neither
/// charges nor dipoles.
PointSet generate_points(const std::string& shape, std::size_t n, std::uint64_t seed,
                         const GeneratedSources& sources);

}  // namespace mlfma2d
