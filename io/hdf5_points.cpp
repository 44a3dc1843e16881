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

enum class Check { kNone, kPoints };

// Reads datasets that must have one common length; for point data, also at least one entry and
// only finite values.
std::vector<std::vector<double>> read_vectors(const Ctx& c, hid_t file,
                                              const std::vector<std::string>& names, Check check) {
  std::vector<std::vector<double>> v;
  for (const std::string& name : names) {
    v.push_back(read_vector(c, file, name));
    if (v.back().size() != v[0].size()) {
      c.fail(names[0] + " has " + std::to_string(v[0].size()) + " entries but " + name + " has " +
             std::to_string(v.back().size()));
    }
  }
  if (check == Check::kNone) return v;
  if (v[0].empty()) c.fail(names[0] + " is empty: at least one point is needed");
  for (std::size_t k = 0; k < names.size(); ++k) {
    for (std::size_t i = 0; i < v[k].size(); ++i) {
      if (!std::isfinite(v[k][i])) {
        c.fail(names[k] + "[" + std::to_string(i) + "] is " +
               (std::isnan(v[k][i]) ? "NaN" : "infinite") + ": values must be finite");
      }
    }
  }
  return v;
}

// Fails on the first entry of `a` that is not finite, naming it by its index in each dimension:
// "/sources/q[2, 17] is NaN".
void require_finite(const Ctx& c, const std::string& name, const Array& a) {
  for (std::size_t k = 0; k < a.v.size(); ++k) {
    if (std::isfinite(a.v[k])) continue;
    std::string index;
    std::size_t rest = k;
    for (std::size_t d = a.dims.size(); d-- > 0;) {
      index = std::to_string(rest % a.dims[d]) + (index.empty() ? "" : ", ") + index;
      rest /= a.dims[d];
    }
    c.fail(name + "[" + index + "] is " + (std::isnan(a.v[k]) ? "NaN" : "infinite") +
           ": values must be finite");
  }
}

// Charges or dipole strengths: (N), one density, or (nd, N). Returns nd.
int read_strengths(const Ctx& c, hid_t file, const std::string& name, std::size_t n,
                   std::vector<double>* out) {
  Array a = read_array(c, file, name, 2, "(N) or (nd, N)");
  if (a.dims.size() == 1 && a.dims[0] != n) {
    c.fail("/sources/x has " + std::to_string(n) + " entries but " + name + " has " +
           std::to_string(a.dims[0]));
  }
  if (a.dims.back() != n) {
    c.fail(name + " has shape " + shape_text(a.dims) + " but /sources/x has " + std::to_string(n) +
           " entries: expected (nd, " + std::to_string(n) + ")");
  }
  const hsize_t nd = a.dims.size() == 1 ? 1 : a.dims[0];
  if (nd < 1 || nd > hsize_t(kMaxDensities)) {
    c.fail(name + " has shape " + shape_text(a.dims) + ": nd = " + std::to_string(nd) +
           " densities, expected 1.." + std::to_string(kMaxDensities));
  }
  require_finite(c, name, a);
  *out = std::move(a.v);
  return int(nd);
}

// The dipoles: strengths and orientations, (2, N) or (nd, 2, N). Returns nd.
int read_dipoles(const Ctx& c, hid_t file, std::size_t n, PointSet* p) {
  const int nd = read_strengths(c, file, kStrength, n, &p->dipole_strengths);
  Array v = read_array(c, file, kVector, 3, "(2, N) or (nd, 2, N)");
  const bool shared = v.dims.size() == 2 && v.dims[0] == 2 && v.dims[1] == n;
  const bool per_density =
      v.dims.size() == 3 && v.dims[0] == hsize_t(nd) && v.dims[1] == 2 && v.dims[2] == n;
  if (!shared && !per_density) {
    const std::string ns = std::to_string(n), nds = std::to_string(nd);
    c.fail(kVector + " has shape " + shape_text(v.dims) + ": expected (2, " + ns + ") or (" + nds +
           ", 2, " + ns + "), the nd = " + nds + " densities of " + kStrength);
  }
  require_finite(c, kVector, v);
  p->dipole_vectors = std::move(v.v);
  p->vectors_per_density = per_density;
  return nd;
}

herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* out) noexcept {
  try {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  } catch (...) {
    return -1;  // exceptions must not cross the C library
  }
}

// Reads the sources, or the targets, or the sources as targets if there are none.
void read_xy(const Ctx& c, hid_t file, const std::string& group, std::vector<double>* x,
             std::vector<double>* y) {
  auto v = read_vectors(c, file, {group + "/x", group + "/y"}, Check::kPoints);
  *x = std::move(v[0]);
  *y = std::move(v[1]);
}

// (n) for one density, (nd, n) otherwise.
std::vector<hsize_t> per_density_shape(int nd, std::size_t n) {
  if (nd == 1) return {hsize_t(n)};
  return {hsize_t(nd), hsize_t(n)};
}

}  // namespace

static PointSet hdf5_read_points(const std::string& path) {
  const Ctx c{path};
  Hid file = open_file(c);
  PointSet p;
  read_xy(c, file.get(), "/sources", &p.x, &p.y);
  const std::size_t n = p.x.size();
  const bool charges = exists(c, file.get(), kQ);
  const bool strengths = exists(c, file.get(), kStrength), vectors = exists(c, file.get(), kVector);
  if (strengths != vectors) {
    c.fail((strengths ? kStrength : kVector) + " without " + (strengths ? kVector : kStrength) +
           ": dipoles need both (docs/files.md)");
  }
  if (!charges && !strengths) {
    c.fail("dataset " + kQ + " not found (nor dipoles, " + kStrength + " and " + kVector + ")");
  }
  if (charges) p.densities = read_strengths(c, file.get(), kQ, n, &p.q);
  if (strengths) {
    const int nd = read_dipoles(c, file.get(), n, &p);
    if (charges && nd != p.densities) {
      c.fail(kQ + " holds " + std::to_string(p.densities) + " densities but " + kStrength +
             " holds " + std::to_string(nd) + ": one nd for both");
    }
    p.densities = nd;
  }
  if (exists(c, file.get(), "/targets")) read_xy(c, file.get(), "/targets", &p.tx, &p.ty);
  return p;
}

static void hdf5_read_targets(const std::string& path, std::vector<double>* tx,
                              std::vector<double>* ty) {
  const Ctx c{path};
  Hid file = open_file(c);
  read_xy(c, file.get(), exists(c, file.get(), "/targets") ? "/targets" : "/sources", tx, ty);
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

std::vector<ResultSet> result_sets(const ResultFile& r) {
  // Every dataset says what it holds, so that the file stands alone.
  std::string at = r.tx.empty() ? "at the targets" : "at the targets /targets/x, /targets/y";
  if (r.densities > 1) at += "; row d: density d (shape (nd, M))";
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

}  // namespace

static void hdf5_write_result(const std::string& tmp, const std::string& path,
                              const ResultFile& r) {
  const Ctx c{path, true};
  Hid file = create_file(c, tmp);
  {
    Hid lcpl = parents_created(c);
    const std::size_t m = r.potential.size() / std::size_t(r.densities);
    for (const ResultSet& set : result_sets(r)) {
      const std::vector<double>& v = r.*set.values;
      if (v.empty() && set.name != "/potential") continue;
      Hid ds = write_dataset(
          c, file.get(), lcpl.get(), set.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
          set.target() ? std::vector<hsize_t>{v.size()} : per_density_shape(r.densities, m),
          v.data());
      write_attribute(c, ds.get(), "description", AttrValue(set.description));
    }
    Hid root = c.own(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose, "cannot open root group");
    for (const auto& [key, value] : r.attributes) write_attribute(c, root.get(), key, value);
  }
  finish_file(c, &file);
}

static ResultFile hdf5_read_result(const std::string& path) {
  const Ctx c{path};
  Hid file = open_file(c);
  ResultFile r;
  // The outputs present, each of the shape of /potential: (M), or (nd, M).
  std::vector<hsize_t> shape;
  for (const ResultSet& set : result_sets(r)) {
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
    auto t = read_vectors(c, file.get(), {"/targets/x", "/targets/y"}, Check::kNone);
    if (t[0].size() != shape.back()) {
      c.fail("/targets/x has " + std::to_string(t[0].size()) + " entries but /potential has " +
             "shape " + shape_text(shape));
    }
    r.tx = std::move(t[0]);
    r.ty = std::move(t[1]);
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

const FormatIo kHdf5Io = {hdf5_read_points,  hdf5_read_targets, hdf5_read_result,
                          hdf5_write_points, hdf5_write_result, hdf5_write_table};

}  // namespace mlfma2d::io_detail
