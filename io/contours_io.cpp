// Contour input files and solution output files of the electrostatic solve (HDF5), on the shared
// helpers of hdf5_io.cpp. Layout: include/mlfma2d/electrostatics.hpp, docs/solve.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "io/hdf5_internal.hpp"
#include "mlfma2d/electrostatics.hpp"

namespace mlfma2d {

using io_detail::Ctx;
using io_detail::Hid;

namespace {

std::string str(long long v) {
  return std::to_string(v);
}

// An integer dataset (any integer type), checked to be integer-typed before it is read.
std::vector<long long> read_integers(const Ctx& c, hid_t file, const std::string& name) {
  if (io_detail::exists(c, file, name)) {
    Hid ds = c.own(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, name + " is not a dataset");
    Hid type = c.own(H5Dget_type(ds.get()), H5Tclose, "cannot read the type of " + name);
    if (H5Tget_class(type.get()) == H5T_FLOAT) {
      c.fail(name + " has floating-point type, expected integers");
    }
  }
  const std::vector<double> v = io_detail::read_vector(c, file, name);  // fails if missing
  std::vector<long long> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    // Integers read through double are exact below 2^53; anything beyond is no valid index.
    if (!(std::abs(v[i]) < 9007199254740992.0)) {
      c.fail(name + "[" + str(i) + "] is out of range");
    }
    out[i] = static_cast<long long>(v[i]);
  }
  return out;
}

Hid write_int64(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name,
                const std::vector<std::int64_t>& v) {
  return io_detail::write_dataset(c, file, lcpl, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v.size(),
                                  v.data());
}

Hid write_int32(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name,
                const std::vector<int>& v) {
  return io_detail::write_dataset(c, file, lcpl, name, H5T_STD_I32LE, H5T_NATIVE_INT, v.size(),
                                  v.data());
}

// A rows x cols float64 dataset from row-major rows.
void write_matrix(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name,
                  const std::vector<std::vector<double>>& m) {
  const hsize_t dims[2] = {m.size(), m.empty() ? 0 : m[0].size()};
  std::vector<double> flat;
  for (const auto& row : m) flat.insert(flat.end(), row.begin(), row.end());
  Hid space = c.own(H5Screate_simple(2, dims, nullptr), H5Sclose, "cannot create dataspace");
  Hid ds = c.own(
      H5Dcreate2(file, name.c_str(), H5T_IEEE_F64LE, space.get(), lcpl, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, "cannot create dataset " + name);
  if (!flat.empty()) {
    c.check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, flat.data()),
            "cannot write dataset " + name);
  }
}

void require_hdf5(const std::string& path) {
  if (format_of(path) != FileFormat::Hdf5) {
    throw InvalidInput("'" + path + "': contour and solution files are HDF5 (.h5, .hdf5)");
  }
}

// A finite number for `name`[i], else a failure naming the dataset and index.
void require_finite(const Ctx& c, const std::string& name, const std::vector<double>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      c.fail(name + "[" + str(i) + "] is " + (std::isnan(v[i]) ? "NaN" : "infinite") +
             ": expected a finite number");
    }
  }
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// A scalar number attribute on /; false when absent.
bool read_root_number(const Ctx& c, hid_t root, const char* key, double* out) {
  const htri_t has = H5Aexists(root, key);
  if (has < 0) c.fail("cannot read the attributes of /");
  if (has == 0) return false;
  AttrValue value;
  if (!io_detail::read_attribute(c, root, key, &value) || value.is_string) {
    c.fail(std::string("attribute ") + key + " on / is not a number");
  }
  if (!std::isfinite(value.number)) {
    c.fail(std::string("attribute ") + key + " on / is " + number_text(value.number) +
           ": expected a finite number");
  }
  *out = value.number;
  return true;
}

ContourFile read(const Ctx& c) {
  Hid file = io_detail::open_file(c);
  const hid_t f = file.get();
  ContourFile out;
  Contours& k = out.contours;
  k.x = io_detail::read_vector(c, f, "/contours/x");
  k.y = io_detail::read_vector(c, f, "/contours/y");
  if (k.x.size() != k.y.size()) {
    c.fail("/contours/x has " + str(k.x.size()) + " entries but /contours/y has " +
           str(k.y.size()));
  }
  require_finite(c, "/contours/x", k.x);
  require_finite(c, "/contours/y", k.y);
  const std::vector<long long> offsets = read_integers(c, f, "/contours/offsets");
  if (offsets.size() < 2) {
    c.fail("/contours/offsets has " + str(offsets.size()) +
           " entries: it needs the number of contours + 1 (at least one contour)");
  }
  const std::size_t n = offsets.size() - 1;
  if (offsets[0] != 0) c.fail("/contours/offsets[0] is " + str(offsets[0]) + ", expected 0");
  for (std::size_t i = 1; i <= n; ++i) {
    if (offsets[i] < offsets[i - 1]) {
      c.fail("/contours/offsets[" + str(i) + "] = " + str(offsets[i]) + " is less than the entry " +
             "before it (" + str(offsets[i - 1]) + ")");
    }
  }
  if (offsets[n] != static_cast<long long>(k.x.size())) {
    c.fail("/contours/offsets[" + str(n) + "] is " + str(offsets[n]) +
           ", expected the vertex count of /contours/x (" + str(k.x.size()) + ")");
  }
  k.offsets.assign(offsets.begin(), offsets.end());
  for (const char* name : {"/contours/closed", "/contours/conductor"}) {
    const std::vector<long long> v = read_integers(c, f, name);
    if (v.size() != n) {
      c.fail(std::string(name) + " has " + str(v.size()) + " entries, expected one per contour (" +
             str(n) + ", from /contours/offsets)");
    }
    const bool closed = name == std::string("/contours/closed");
    for (std::size_t i = 0; i < n; ++i) {
      if (closed && v[i] != 0 && v[i] != 1) {
        c.fail(std::string(name) + "[" + str(i) + "] is " + str(v[i]) + ", expected 0 or 1");
      }
      if (!closed && (v[i] < kDielectric || v[i] >= static_cast<long long>(n))) {
        c.fail(std::string(name) + "[" + str(i) + "] is " + str(v[i]) +
               ", expected a conductor index 0.." + str(n - 1) +
               " (at most one per contour) or -1 (a dielectric region's boundary)");
      }
    }
    (closed ? k.closed : k.conductor).assign(v.begin(), v.end());
  }
  if (io_detail::exists(c, f, "/contours/bulge")) {
    k.bulge = io_detail::read_vector(c, f, "/contours/bulge");
    if (k.bulge.size() != k.x.size()) {
      c.fail("/contours/bulge has " + str(k.bulge.size()) + " entries, expected one per vertex (" +
             str(k.x.size()) + ", as /contours/x)");
    }
    require_finite(c, "/contours/bulge", k.bulge);
  }
  if (io_detail::exists(c, f, "/contours/eps_r")) {
    k.eps_r = io_detail::read_vector(c, f, "/contours/eps_r");
    if (k.eps_r.size() != n) {
      c.fail("/contours/eps_r has " + str(k.eps_r.size()) + " entries, expected one per contour (" +
             str(n) + ", from /contours/offsets)");
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (k.conductor[i] != kDielectric) {
        k.eps_r[i] = 0;  // a conductor's entry means nothing
      } else if (!(std::isfinite(k.eps_r[i]) && k.eps_r[i] > 0)) {
        c.fail("/contours/eps_r[" + str(i) + "] is " + number_text(k.eps_r[i]) + ": contour " +
               str(i) + " bounds a dielectric region, its eps_r must be > 0");
      }
    }
  } else if (k.has_dielectrics()) {
    const auto it = std::find(k.conductor.begin(), k.conductor.end(), kDielectric);
    c.fail("/contours/eps_r is missing: /contours/conductor[" + str(it - k.conductor.begin()) +
           "] is -1 (a dielectric region), whose permittivity it would give");
  }
  if (io_detail::exists(c, f, "/conductors/potential")) {
    out.potentials = io_detail::read_vector(c, f, "/conductors/potential");
    const int conductors = k.conductors();
    if (out.potentials.size() != static_cast<std::size_t>(conductors)) {
      c.fail("/conductors/potential has " + str(out.potentials.size()) +
             " entries but /contours/conductor names " + str(conductors) + " conductors");
    }
    require_finite(c, "/conductors/potential", out.potentials);
  }
  Hid root = c.own(H5Gopen2(f, "/", H5P_DEFAULT), H5Gclose, "cannot open the root group");
  out.has_eps_r = read_root_number(c, root.get(), "eps_r", &out.eps_r);
  if (out.has_eps_r && !(out.eps_r > 0)) {
    c.fail("attribute eps_r on / is " + number_text(out.eps_r) + ": expected > 0");
  }
  out.ground_plane = read_root_number(c, root.get(), "ground_plane_y", &out.ground_plane_y);
  try {
    validate(k, out.ground_plane ? out.ground_plane_y : std::nan(""));
  } catch (const InvalidInput& e) {
    c.fail(e.what());
  }
  return out;
}

// Attributes that make a dataset stand alone: what it holds and its unit ("1": none).
void describe(const Ctx& c, const Hid& dataset, const std::string& description, const char* units) {
  io_detail::write_attribute(c, dataset.get(), "description", AttrValue(description));
  io_detail::write_attribute(c, dataset.get(), "units", AttrValue(units));
}

}  // namespace

ContourFile read_contours(const std::string& path) {
  require_hdf5(path);
  io_detail::require_readable(path);
  return read(Ctx{path});
}

void write_contours(const std::string& path, const ContourFile& file) {
  require_hdf5(path);
  validate(file.contours, file.ground_plane ? file.ground_plane_y : std::nan(""));
  const Contours& k = file.contours;
  // Conductor contours carry no permittivity: 0 in the file, whatever the caller left there.
  std::vector<double> eps_r = k.eps_r;
  for (std::size_t i = 0; i < eps_r.size(); ++i) {
    if (k.conductor[i] != kDielectric) eps_r[i] = 0;
  }
  write_atomically(path, [&](const std::string& tmp) {
    const Ctx c{path, true};
    Hid h5 = io_detail::create_file(c, tmp);
    {
      Hid lcpl = io_detail::parents_created(c);
      const hid_t f = h5.get(), l = lcpl.get();
      auto real = [&](const char* name, const std::vector<double>& v, const char* description,
                      const char* units) {
        describe(c,
                 io_detail::write_dataset(c, f, l, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                          v.size(), v.data()),
                 description, units);
      };
      real("/contours/x", k.x, "x coordinate of each vertex, contour after contour", "m");
      real("/contours/y", k.y, "y coordinate of each vertex, contour after contour", "m");
      describe(c, write_int64(c, f, l, "/contours/offsets", k.offsets),
               "first vertex of each contour; contours + 1 entries, the last = the vertex count",
               "1");
      describe(c, write_int32(c, f, l, "/contours/closed", k.closed),
               "per contour: 1 = closed (the last vertex joins the first), 0 = open", "1");
      describe(c, write_int32(c, f, l, "/contours/conductor", k.conductor),
               "per contour: its conductor (0-based), or -1 for the boundary of a dielectric "
               "region",
               "1");
      if (!k.bulge.empty()) {
        real("/contours/bulge", k.bulge,
             "per vertex: the segment it starts is a circular arc of included angle "
             "4 atan(bulge), counter-clockwise when positive (0 = straight, 1 = half circle)",
             "1");
      }
      if (!eps_r.empty()) {
        real("/contours/eps_r", eps_r,
             "per contour: relative permittivity inside a dielectric region (conductor -1); 0 "
             "for conductor contours",
             "1");
      }
      if (!file.potentials.empty()) {
        real("/conductors/potential", file.potentials, "potential of each conductor", "V");
      }
      Hid root = c.own(H5Gopen2(f, "/", H5P_DEFAULT), H5Gclose, "cannot open the root group");
      if (file.has_eps_r) io_detail::write_attribute(c, root.get(), "eps_r", file.eps_r);
      if (file.ground_plane) {
        io_detail::write_attribute(c, root.get(), "ground_plane_y", file.ground_plane_y);
      }
    }
    io_detail::finish_file(c, &h5);
  });
}

void write_solution(const std::string& path, const ElectrostaticSolution& s,
                    const std::vector<double>& tx, const std::vector<double>& ty,
                    const FieldAtTargets* field) {
  require_hdf5(path);
  if (field && (tx.size() != field->potential.size() || ty.size() != tx.size())) {
    throw InvalidInput("cannot write '" + path + "': targets and their field differ in length");
  }
  write_atomically(path, [&](const std::string& tmp) {
    const Ctx c{path, true};
    Hid h5 = io_detail::create_file(c, tmp);
    {
      Hid lcpl = io_detail::parents_created(c);
      const hid_t f = h5.get(), l = lcpl.get();
      write_matrix(c, f, l, "/capacitance", s.capacitance);
      io_detail::write_vector(c, f, l, "/charge", s.charge);
      io_detail::write_vector(c, f, l, "/conductors/potential", s.potentials);
      io_detail::write_vector(c, f, l, "/panels/x", s.panels.x);
      io_detail::write_vector(c, f, l, "/panels/y", s.panels.y);
      io_detail::write_vector(c, f, l, "/panels/length", s.panels.length);
      io_detail::write_vector(c, f, l, "/panels/sigma", s.sigma);
      write_int32(c, f, l, "/panels/conductor", s.panels.conductor);
      if (field) {
        io_detail::write_vector(c, f, l, "/targets/x", tx);
        io_detail::write_vector(c, f, l, "/targets/y", ty);
        io_detail::write_vector(c, f, l, "/targets/potential", field->potential);
        io_detail::write_vector(c, f, l, "/targets/field_x", field->field_x);
        io_detail::write_vector(c, f, l, "/targets/field_y", field->field_y);
      }
      Hid root = c.own(H5Gopen2(f, "/", H5P_DEFAULT), H5Gclose, "cannot open the root group");
      const ElectrostaticTimings& t = s.timings;
      const std::vector<std::pair<const char*, AttrValue>> attributes = {
          {"version", version()},
          {"eps_r", s.eps_r},
          {"reference", double(s.reference)},
          {"offset", s.offset},
          {"panels", double(s.panels.size())},
          {"iterations", double(s.iterations)},
          {"residual", s.residual},
          {"fmm_eps", s.fmm_eps},
          {"timing_total", t.total},
          {"timing_solve", t.solve},
          {"timing_product", t.product},
          {"products", double(t.products)}};
      for (const auto& [key, value] : attributes) {
        io_detail::write_attribute(c, root.get(), key, value);
      }
    }
    io_detail::finish_file(c, &h5);
  });
}

}  // namespace mlfma2d
