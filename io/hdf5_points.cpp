// HDF5 point sets and results (docs/files.md). Sources: /sources/x, /sources/y (N), charges
// /sources/q and dipole strengths /sources/dipole_strength as (N) for one density or (nd, N),
// orientations /sources/dipole_vector as (2, N) or (nd, 2, N). Results: every output (M) for one
// density (so that readers of files before several densities read them) or (nd, M).
#include <hdf5.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/hdf5_internal.hpp"
#include "mlfma2d/mlfma2d.hpp"  // kMaxDensities

namespace mlfma2d::io_detail {
namespace {

const std::string kQ = "/sources/q";
const std::string kStrength = "/sources/dipole_strength";
const std::string kVector = "/sources/dipole_vector";

// The values of a dataset (or a part of it: `first` is the index of its first entry in the last
// dimension) must be finite: the first that is not is named by its index in the file, in each
// dimension: "/sources/q[2, 17] is NaN".
void require_finite(const Ctx& c, const std::string& name, const Array& a, hsize_t first = 0) {
  for (std::size_t k = 0; k < a.v.size(); ++k) {
    if (std::isfinite(a.v[k])) continue;
    std::string index;
    std::size_t rest = k;
    for (std::size_t d = a.dims.size(); d-- > 0;) {
      const std::size_t i = rest % a.dims[d] + (d + 1 == a.dims.size() ? first : 0);
      index = std::to_string(i) + (index.empty() ? "" : ", ") + index;
      rest /= a.dims[d];
    }
    c.fail(name + "[" + index + "] is " + (std::isnan(a.v[k]) ? "NaN" : "infinite") +
           ": values must be finite");
  }
}

// The common length of `group`/x and `group`/y, 1-D: at least one point when `points`.
std::size_t xy_length(const Ctx& c, hid_t file, const std::string& group, bool points) {
  const std::string xn = group + "/x", yn = group + "/y";
  const hsize_t n = dataset_shape(c, file, xn, 1, "1-dimensional")[0];
  const hsize_t ny = dataset_shape(c, file, yn, 1, "1-dimensional")[0];
  if (ny != n) {
    c.fail(xn + " has " + std::to_string(n) + " entries but " + yn + " has " + std::to_string(ny));
  }
  if (points && n == 0) c.fail(xn + " is empty: at least one point is needed");
  return std::size_t(n);
}

// Charges or dipole strengths: (N), one density, or (nd, N). Returns nd.
int strengths_shape(const Ctx& c, hid_t file, const std::string& name, std::size_t n) {
  const std::vector<hsize_t> dims = dataset_shape(c, file, name, 2, "(N) or (nd, N)");
  if (dims.size() == 1 && dims[0] != n) {
    c.fail("/sources/x has " + std::to_string(n) + " entries but " + name + " has " +
           std::to_string(dims[0]));
  }
  if (dims.back() != n) {
    c.fail(name + " has shape " + shape_text(dims) + " but /sources/x has " + std::to_string(n) +
           " entries: expected (nd, " + std::to_string(n) + ")");
  }
  const hsize_t nd = dims.size() == 1 ? 1 : dims[0];
  if (nd < 1 || nd > hsize_t(kMaxDensities)) {
    c.fail(name + " has shape " + shape_text(dims) + ": nd = " + std::to_string(nd) +
           " densities, expected 1.." + std::to_string(kMaxDensities));
  }
  return int(nd);
}

// The dipoles' orientations: (2, N) or (nd, 2, N); true for the latter.
bool vectors_shape(const Ctx& c, hid_t file, std::size_t n, int nd) {
  const std::vector<hsize_t> dims = dataset_shape(c, file, kVector, 3, "(2, N) or (nd, 2, N)");
  const bool shared = dims.size() == 2 && dims[0] == 2 && dims[1] == n;
  const bool per_density =
      dims.size() == 3 && dims[0] == hsize_t(nd) && dims[1] == 2 && dims[2] == n;
  if (!shared && !per_density) {
    const std::string ns = std::to_string(n), nds = std::to_string(nd);
    c.fail(kVector + " has shape " + shape_text(dims) + ": expected (2, " + ns + ") or (" + nds +
           ", 2, " + ns + "), the nd = " + nds + " densities of " + kStrength);
  }
  return per_density;
}

// Every shape of a point file, checked: the sources, their strengths, the targets.
PointFileShape points_shape(const Ctx& c, hid_t file) {
  PointFileShape p;
  p.sources = xy_length(c, file, "/sources", true);
  const std::size_t n = p.sources;
  p.charges = exists(c, file, kQ);
  const bool strengths = exists(c, file, kStrength), vectors = exists(c, file, kVector);
  if (strengths != vectors) {
    c.fail((strengths ? kStrength : kVector) + " without " + (strengths ? kVector : kStrength) +
           ": dipoles need both (docs/files.md)");
  }
  if (!p.charges && !strengths) {
    c.fail("dataset " + kQ + " not found (nor dipoles, " + kStrength + " and " + kVector + ")");
  }
  if (p.charges) p.densities = strengths_shape(c, file, kQ, n);
  if (strengths) {
    const int nd = strengths_shape(c, file, kStrength, n);
    if (p.charges && nd != p.densities) {
      c.fail(kQ + " holds " + std::to_string(p.densities) + " densities but " + kStrength +
             " holds " + std::to_string(nd) + ": one nd for both");
    }
    p.densities = nd;
    p.dipoles = true;
    p.vectors_per_density = vectors_shape(c, file, n, nd);
  }
  if (exists(c, file, "/targets")) p.targets = xy_length(c, file, "/targets", true);
  return p;
}

// A part of a dataset, its values checked finite.
std::vector<double> read_part(const Ctx& c, hid_t file, const std::string& name, int max_rank,
                              const PointRange& r) {
  const Range part{r.first, r.count};
  Array a = read_array(c, file, name, max_rank, "", &part);
  require_finite(c, name, a, r.first);
  return std::move(a.v);
}

void check_range(const Ctx& c, const std::string& what, const PointRange& r, std::size_t n) {
  if (r.first > n || r.count > n - r.first) {
    throw InvalidInput(c.path + ": " + what + " " + std::to_string(r.first) + " to " +
                       std::to_string(r.first + r.count) + " asked, the file holds " +
                       std::to_string(n));
  }
}

// The points of `group` (x, y) in `r`.
void read_xy(const Ctx& c, hid_t file, const std::string& group, const PointRange& r,
             std::vector<double>* x, std::vector<double>* y) {
  *x = read_part(c, file, group + "/x", 1, r);
  *y = read_part(c, file, group + "/y", 1, r);
}

herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* out) noexcept {
  try {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  } catch (...) {
    return -1;  // exceptions must not cross the C library
  }
}

// (n) for one density, (nd, n) otherwise.
std::vector<hsize_t> per_density_shape(int nd, std::size_t n) {
  if (nd == 1) return {hsize_t(n)};
  return {hsize_t(nd), hsize_t(n)};
}

// The group a targets file's points are read from: /targets, else /sources.
std::string target_group(const Ctx& c, hid_t file) {
  return exists(c, file, "/targets") ? "/targets" : "/sources";
}

}  // namespace

static PointFileShape hdf5_points_shape(const std::string& path) {
  const Ctx c{path};
  Hid file = open_file(c);
  return points_shape(c, file.get());
}

static PointSet hdf5_read_part(const std::string& path, const PointRange* sources,
                               const PointRange* targets) {
  const Ctx c{path};
  Hid file = open_file(c);
  const PointFileShape shape = points_shape(c, file.get());
  const PointRange all{0, shape.sources}, all_targets{0, shape.targets};
  const PointRange& s = sources ? *sources : all;
  const PointRange& t = targets ? *targets : all_targets;
  check_range(c, "sources", s, shape.sources);
  check_range(c, "targets", t, shape.targets);
  PointSet p;
  p.densities = shape.densities;
  read_xy(c, file.get(), "/sources", s, &p.x, &p.y);
  if (shape.charges) p.q = read_part(c, file.get(), kQ, 2, s);
  if (shape.dipoles) {
    p.dipole_strengths = read_part(c, file.get(), kStrength, 2, s);
    p.dipole_vectors = read_part(c, file.get(), kVector, 3, s);
    p.vectors_per_density = shape.vectors_per_density;
  }
  if (t.count > 0) read_xy(c, file.get(), "/targets", t, &p.tx, &p.ty);
  return p;
}

static PointSet hdf5_read_points(const std::string& path) {
  return hdf5_read_part(path, nullptr, nullptr);
}

static PointSet hdf5_read_slice(const std::string& path, const PointRange& sources,
                                const PointRange& targets) {
  return hdf5_read_part(path, &sources, &targets);
}

static std::size_t hdf5_target_count(const std::string& path) {
  const Ctx c{path};
  Hid file = open_file(c);
  return xy_length(c, file.get(), target_group(c, file.get()), true);
}

static void hdf5_read_target_part(const std::string& path, const PointRange* range,
                                  std::vector<double>* tx, std::vector<double>* ty) {
  const Ctx c{path};
  Hid file = open_file(c);
  const std::string group = target_group(c, file.get());
  const std::size_t m = xy_length(c, file.get(), group, true);
  const PointRange r = range ? *range : PointRange{0, m};
  check_range(c, "targets", r, m);
  read_xy(c, file.get(), group, r, tx, ty);
}

static void hdf5_read_targets(const std::string& path, std::vector<double>* tx,
                              std::vector<double>* ty) {
  hdf5_read_target_part(path, nullptr, tx, ty);
}

static void hdf5_read_target_slice(const std::string& path, const PointRange& range,
                                   std::vector<double>* tx, std::vector<double>* ty) {
  hdf5_read_target_part(path, &range, tx, ty);
}

static void hdf5_write_points(const std::string& tmp, const std::string& path, const PointSet& p) {
  const Ctx c{path, true};
  Hid file = create_file(c, tmp);
  {
    Hid lcpl = parents_created(c);
    auto write = [&](const std::string& name, const std::vector<hsize_t>& dims,
                     const std::vector<double>& v) {
      write_dataset(c, file.get(), lcpl.get(), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims,
                    v.data());
    };
    const std::size_t n = p.x.size();
    write_vector(c, file.get(), lcpl.get(), "/sources/x", p.x);
    write_vector(c, file.get(), lcpl.get(), "/sources/y", p.y);
    if (p.has_charges()) write(kQ, per_density_shape(p.densities, n), p.q);
    if (p.has_dipoles()) {
      write(kStrength, per_density_shape(p.densities, n), p.dipole_strengths);
      write(kVector,
            p.vectors_per_density ? std::vector<hsize_t>{hsize_t(p.densities), 2, hsize_t(n)}
                                  : std::vector<hsize_t>{2, hsize_t(n)},
            p.dipole_vectors);
    }
    if (p.has_targets()) {
      write_vector(c, file.get(), lcpl.get(), "/targets/x", p.tx);
      write_vector(c, file.get(), lcpl.get(), "/targets/y", p.ty);
    }
  }
  finish_file(c, &file);
}

namespace {

// One dataset of a result file: its name, where its values go, what it holds.
struct ResultSet {
  std::string name;
  std::vector<double> ResultFile::*values;
  std::string description;
  bool target() const { return name.rfind("/targets/", 0) == 0; }
};

std::vector<ResultSet> result_sets(bool coordinates, int densities) {
  // Every dataset says what it holds, so that the file stands alone.
  std::string at = coordinates ? "at the targets /targets/x, /targets/y" : "at the targets";
  if (densities > 1) at += "; row d: density d (shape (nd, M))";
  const std::string phi =
      "phi(x_i) = sum_j q_j log|x_i - y_j| + sum_j d_j v_j . (x_i - y_j) / |x_i - y_j|^2 (charges "
      "q, dipoles d v; the root attribute 'sources' says which)";
  const std::string field = "of the field E = -grad phi " + at;
  const std::string hessian = "(the Hessian of phi) " + at;
  return {
      {"/targets/x", &ResultFile::tx, "x coordinate of each target, in the order of the values"},
      {"/targets/y", &ResultFile::ty, "y coordinate of each target, in the order of the values"},
      {"/potential", &ResultFile::potential,
       "potential " + phi + " " + at +
           " (units-free, no 1/(2 pi) factor, pairs with x_i == y_j skipped)"},
      {"/field/x", &ResultFile::field_x, "x component " + field},
      {"/field/y", &ResultFile::field_y, "y component " + field},
      {"/hessian/xx", &ResultFile::hessian_xx, "d2 phi / dx2 " + hessian},
      {"/hessian/xy", &ResultFile::hessian_xy, "d2 phi / dx dy " + hessian},
      {"/hessian/yy", &ResultFile::hessian_yy,
       "d2 phi / dy2 = -d2 phi / dx2 (phi is harmonic away from the sources) " + hessian},
  };
}

// Whether a result of `shape` has the dataset `set`.
bool written(const ResultSet& set, const ResultShape& shape) {
  if (set.target()) return shape.coordinates;
  if (set.name.rfind("/field/", 0) == 0) return shape.field;
  if (set.name.rfind("/hessian/", 0) == 0) return shape.hessian;
  return true;
}

}  // namespace

static void hdf5_write_result(const std::string& tmp, const std::string& path,
                              const ResultShape& shape, const ResultParts& next) {
  const Ctx c{path, true};
  Hid file = create_file(c, tmp);
  {
    Hid lcpl = parents_created(c);
    // Every dataset at its full size first, then each part into its columns.
    const std::vector<ResultSet> sets = result_sets(shape.coordinates, shape.densities);
    std::vector<const ResultSet*> made;
    std::vector<Hid> datasets;
    for (const ResultSet& set : sets) {
      if (!written(set, shape)) continue;
      const std::vector<hsize_t> dims = set.target()
                                            ? std::vector<hsize_t>{shape.targets}
                                            : per_density_shape(shape.densities, shape.targets);
      datasets.push_back(create_dataset(c, file.get(), lcpl.get(), set.name, H5T_IEEE_F64LE, dims));
      write_attribute(c, datasets.back().get(), "description", AttrValue(set.description));
      made.push_back(&set);
    }
    hsize_t first = 0;
    while (const ResultFile* part = next()) {
      const hsize_t m = part->potential.size() / std::size_t(shape.densities);
      for (std::size_t k = 0; k < made.size(); ++k) {
        const std::vector<double>& v = part->*(made[k]->values);
        write_part(c, datasets[k].get(), made[k]->name, first, m, v.data());
      }
      first += m;
    }
    Hid root = c.own(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose, "cannot open root group");
    for (const auto& [key, value] : shape.attributes) write_attribute(c, root.get(), key, value);
  }
  finish_file(c, &file);
}

static ResultFile hdf5_read_result(const std::string& path) {
  const Ctx c{path};
  Hid file = open_file(c);
  ResultFile r;
  // The outputs present, each of the shape of /potential: (M), or (nd, M).
  std::vector<hsize_t> shape;
  for (const ResultSet& set : result_sets(false, 1)) {
    if (set.target() || (set.name != "/potential" && !exists(c, file.get(), set.name))) continue;
    Array a = read_array(c, file.get(), set.name, 2, "(M) or (nd, M)");
    if (shape.empty()) shape = a.dims;
    if (a.dims != shape) {
      c.fail(set.name + " has shape " + shape_text(a.dims) + " but /potential has " +
             shape_text(shape));
    }
    r.*set.values = std::move(a.v);
  }
  if (shape.size() == 2) {
    if (shape[0] < 1) c.fail("/potential has shape " + shape_text(shape) + ": no densities");
    r.densities = int(shape[0]);
  }
  if (r.field_x.empty() != r.field_y.empty()) c.fail("has only one of /field/x, /field/y");
  if (r.hessian_xx.empty() != r.hessian_xy.empty() || r.hessian_xx.empty() != r.hessian_yy.empty())
    c.fail("has only some of /hessian/xx, /hessian/xy, /hessian/yy");
  if (exists(c, file.get(), "/targets")) {
    const std::size_t m = xy_length(c, file.get(), "/targets", false);
    if (m != shape.back()) {
      c.fail("/targets/x has " + std::to_string(m) + " entries but /potential has " + "shape " +
             shape_text(shape));
    }
    r.tx = read_vector(c, file.get(), "/targets/x");
    r.ty = read_vector(c, file.get(), "/targets/y");
  }
  Hid root = c.own(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose, "cannot open root group");
  std::vector<std::string> keys;
  c.check(H5Aiterate2(root.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &keys),
          "cannot list the attributes");
  for (const std::string& key : keys) {
    AttrValue value;
    if (read_attribute(c, root.get(), key, &value)) r.attributes[key] = value;
  }
  return r;
}

const FormatIo kHdf5Io = {hdf5_read_points,      hdf5_read_targets, hdf5_read_result,
                          hdf5_write_points,     hdf5_write_result, hdf5_write_table,
                          hdf5_points_shape,     hdf5_read_slice,   hdf5_target_count,
                          hdf5_read_target_slice};

}  // namespace mlfma2d::io_detail
