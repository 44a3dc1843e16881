// Contour input files and solution output files of the electrostatic solve (HDF5), on the shared
// helpers of hdf5_io.cpp, and the HSPICE RLGC text file. Layout: electrostatics.hpp, docs/solve.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "io/hdf5_internal.hpp"
#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/io.hpp"

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

namespace {

// The datasets of a solution file, each with its "description" and "units" ("1": a ratio, a
// count or an index) attributes; integers stored as integers.
struct SolutionWriter {
  const Ctx& c;
  hid_t file, lcpl;

  void describe(hid_t ds, const char* units, const std::string& description) const {
    io_detail::write_attribute(c, ds, "description", AttrValue(description));
    io_detail::write_attribute(c, ds, "units", AttrValue(units));
  }
  void doubles(const std::string& name, const std::vector<double>& v, const char* units,
               const std::string& description) const {
    Hid ds = io_detail::write_dataset(c, file, lcpl, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                      v.size(), v.data());
    describe(ds.get(), units, description);
  }
  template <class Int>
  void integers(const std::string& name, const std::vector<Int>& v,
                const std::string& description) const {
    std::vector<std::int64_t> w(v.begin(), v.end());
    Hid ds = io_detail::write_dataset(c, file, lcpl, name, H5T_STD_I64LE, H5T_NATIVE_INT64,
                                      w.size(), w.data());
    describe(ds.get(), "1", description);
  }
  void texts(const std::string& name, const std::vector<std::string>& v,
             const std::string& description) const {
    std::vector<const char*> p;
    for (const std::string& t : v) p.push_back(t.c_str());
    Hid type = io_detail::string_type(c, H5T_VARIABLE, H5T_CSET_UTF8);
    Hid ds =
        io_detail::write_dataset(c, file, lcpl, name, type.get(), type.get(), p.size(), p.data());
    describe(ds.get(), "", description);
  }
  // A rows x cols float64 dataset from row-major rows (rows x 0 when empty).
  void matrix(const std::string& name, const std::vector<std::vector<double>>& m, const char* units,
              const std::string& description) const {
    const hsize_t dims[2] = {m.size(), m.empty() ? 0 : m[0].size()};
    std::vector<double> flat;
    for (const auto& row : m) {
      if (row.size() != dims[1]) c.fail(name + ": rows of different lengths");
      flat.insert(flat.end(), row.begin(), row.end());
    }
    Hid space = c.own(H5Screate_simple(2, dims, nullptr), H5Sclose, "cannot create dataspace");
    Hid ds = c.own(
        H5Dcreate2(file, name.c_str(), H5T_IEEE_F64LE, space.get(), lcpl, H5P_DEFAULT, H5P_DEFAULT),
        H5Dclose, "cannot create dataset " + name);
    if (!flat.empty()) {
      c.check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, flat.data()),
              "cannot write dataset " + name);
    }
    describe(ds.get(), units, description);
  }
};

// The method behind a solution: the FMM leaves its back end, the dense LU none.
std::string method_of(const ElectrostaticSolution& s) {
  return s.fmm_backend.empty() ? "dense" : "fmm";
}

}  // namespace

void write_solution(const std::string& path, const ElectrostaticSolution& s,
                    const std::vector<double>& tx, const std::vector<double>& ty,
                    const FieldAtTargets* field) {
  require_hdf5(path);
  if (field && (tx.size() != field->potential.size() || ty.size() != tx.size())) {
    throw InvalidInput("cannot write '" + path + "': targets and their field differ in length");
  }
  const std::size_t K = s.charge.size();
  if (s.potentials.size() != K) {
    throw InvalidInput("cannot write '" + path + "': " + str(K) + " charges but " +
                       str(s.potentials.size()) + " potentials");
  }
  write_atomically(path, [&](const std::string& tmp) {
    const Ctx c{path, true};
    Hid h5 = io_detail::create_file(c, tmp);
    {
      Hid lcpl = io_detail::parents_created(c);
      const SolutionWriter w{c, h5.get(), lcpl.get()};
      const LineParameters& line = s.line;
      const std::string signal =
          " (rows and columns: the signal conductors, /capacitance_conductors)";

      // Conductors.
      // One conductor without a plane carries a given charge: no reference.
      const bool referenced = s.ground_plane || K >= 2;
      std::vector<std::string> kind;
      for (std::size_t k = 0; k < K; ++k) {
        kind.push_back(referenced && static_cast<int>(k) == s.reference ? "reference" : "signal");
      }
      w.doubles("/conductors/potential", s.potentials, "V",
                "potential of each conductor (K = 1: relative to the offset gauge)");
      w.doubles("/conductors/charge", s.charge, "C/m",
                "free charge per unit length of each conductor, for /conductors/potential");
      w.texts("/conductors/kind", kind,
              "signal, or reference (the ground of the capacitance matrix; over a ground plane "
              "the plane is the reference and every conductor is a signal conductor)");

      // Line parameters.
      w.integers("/capacitance_conductors", s.capacitance_conductors,
                 "the signal conductors: rows and columns of the matrices below (0-based)");
      w.matrix("/capacitance", s.capacitance, "F/m",
               "Maxwell capacitance matrix C: Q_i = sum_j C_ij V_j, V relative to the "
               "reference" +
                   signal);
      w.matrix("/capacitance_vacuum", line.capacitance_vacuum, "F/m",
               "C0: the Maxwell matrix with every eps_r = 1" + signal);
      w.matrix("/inductance", line.inductance, "H/m", "L = mu0 eps0 C0^-1" + signal);
      w.matrix("/capacitance_mutual", line.capacitance_mutual, "F/m",
               "mutual (SPICE) form of C: -C_ij off the diagonal" + signal);
      w.doubles("/capacitance_to_ground", line.capacitance_to_ground, "F/m",
                "capacitance of each signal conductor to the reference: sum_j C_ij");
      std::vector<double> velocity, eps_eff, impedance;
      std::vector<std::vector<double>> voltage;
      for (const LineMode& m : line.modes) {
        velocity.push_back(m.velocity);
        eps_eff.push_back(m.eps_eff);
        impedance.push_back(m.impedance);
        voltage.push_back(m.voltage);
      }
      w.doubles("/modes/velocity", velocity, "m/s",
                "propagation velocity of each mode, slowest "
                "first (for a symmetric pair: even, odd)");
      w.doubles("/modes/eps_eff", eps_eff, "1", "effective permittivity (c / velocity)^2");
      w.doubles("/modes/impedance", impedance, "ohm",
                "modal impedance V.V / (V.I) for the mode's voltages V and currents I");
      w.matrix("/modes/voltage", voltage, "1",
               "row m: mode m's voltages on the signal conductors (max |.| = 1)");

      // Panels.
      const Panels& p = s.panels;
      w.doubles("/panels/x", p.x, "m", "panel centre x (the collocation point)");
      w.doubles("/panels/y", p.y, "m", "panel centre y");
      w.doubles("/panels/x0", p.x0, "m", "panel start point x");
      w.doubles("/panels/y0", p.y0, "m", "panel start point y");
      w.doubles("/panels/x1", p.x1, "m", "panel end point x");
      w.doubles("/panels/y1", p.y1, "m", "panel end point y");
      w.doubles("/panels/length", p.length, "m", "panel length");
      w.integers("/panels/contour", p.contour, "contour of each panel (0-based)");
      w.integers("/panels/conductor", p.conductor,
                 "conductor of each panel (0-based), -1 on a dielectric interface");
      w.doubles("/panels/eps_left", p.eps_left, "1",
                "relative permittivity left of the direction start -> end (the normal's side)");
      w.doubles("/panels/eps_right", p.eps_right, "1",
                "relative permittivity right of the direction start -> end");
      w.doubles("/panels/sigma", s.sigma, "C/m^2",
                "surface charge at each panel centre: free charge on conductors (both faces), "
                "polarisation charge on interfaces");
      w.doubles("/panels/sigma_total", s.sigma_total, "C/m^2",
                "total (free + polarisation) surface charge whose field in vacuum is the field");

      // The meshes of an accuracy-driven solve, and the GMRES solves of the last.
      std::vector<std::size_t> panels;
      std::vector<double> change, seconds;
      std::vector<int> iterations;
      for (const MeshLevel& m : s.meshes) {
        panels.push_back(m.panels);
        change.push_back(m.change);
        seconds.push_back(m.seconds);
        iterations.push_back(m.iterations);
      }
      w.integers("/meshes/panels", panels, "panels of each mesh solved, coarse to fine");
      w.doubles("/meshes/change", change, "1",
                "max_ij |C_ij - C_ij(previous mesh)| / sqrt(C_ii C_jj); NaN on the first");
      w.integers("/meshes/iterations", iterations, "GMRES iterations on each mesh");
      w.doubles("/meshes/seconds", seconds, "s", "wall-clock seconds of each mesh");
      std::vector<int> solve_iterations;
      std::vector<double> solve_residual;
      for (const SolveStats& st : s.solves) {
        solve_iterations.push_back(st.iterations);
        solve_residual.push_back(st.residual);
      }
      w.integers("/solves/iterations", solve_iterations,
                 "GMRES iterations of each right-hand side (final mesh)");
      w.doubles("/solves/residual", solve_residual, "1",
                "final true relative residual of each right-hand side");

      if (field) {
        w.doubles("/targets/x", tx, "m", "target x");
        w.doubles("/targets/y", ty, "m", "target y");
        w.doubles("/targets/potential", field->potential, "V",
                  "potential (at a panel end: the limit)");
        w.doubles("/targets/field_x", field->field_x, "V/m",
                  "E_x = -dphi/dx (on a panel: the mean of its two sides; at a panel end: NaN)");
        w.doubles("/targets/field_y", field->field_y, "V/m", "E_y = -dphi/dy (as field_x)");
      }

      // Settings and figures. Unit of each number: attribute_units.
      using A = AttrValue;
      const ElectrostaticTimings& t = s.timings;
      // Z0, eps_eff and the velocity: one signal conductor, line parameters computed.
      const bool one_signal = s.capacitance.size() == 1 && line.inductance.size() == 1;
      std::vector<std::pair<const char*, AttrValue>> attributes = {
          {"version", version()},
          {"method", method_of(s)},
          {"preconditioner", s.preconditioner},
          {"tol", s.tol},
          {"fmm_backend", s.fmm_backend},
          {"fmm_eps", s.fmm_eps},
          {"eps_r", s.eps_r},
          {"conductors", A::from_integer(static_cast<std::int64_t>(K))},
          {"reference", A::from_integer(s.reference)},
          {"offset", s.offset},
          {"ground_plane", A::from_integer(s.ground_plane ? 1 : 0)},
          {"panels", A::from_integer(static_cast<std::int64_t>(s.panels.size()))},
          {"iterations", A::from_integer(s.iterations)},
          {"residual", s.residual},
          {"accuracy_target", s.accuracy_target},
          {"accuracy_estimate", s.accuracy_estimate},
          {"accuracy_met", A::from_integer(s.accuracy_met ? 1 : 0)},
          {"symmetric_pair", A::from_integer(line.symmetric_pair ? 1 : 0)},
          {"products", A::from_integer(static_cast<std::int64_t>(t.products))},
          {"timing_discretise", t.discretise},
          {"timing_near", t.near},
          {"timing_fmm_setup", t.fmm_setup},
          {"timing_preconditioner", t.preconditioner},
          {"timing_solve", t.solve},
          {"timing_product", t.product},
          {"timing_total", t.total},
          {"attribute_units",
           "offset V; ground_plane_y m; z0 ohm; velocity m/s; timing_* s; the rest 1. "
           "accuracy_target 0: one solve on a fixed mesh; accuracy_estimate NaN: not "
           "estimated; accuracy_met 1 only when the estimate was checked against the target"}};
      if (s.ground_plane) attributes.push_back({"ground_plane_y", s.ground_plane_y});
      if (one_signal) {
        attributes.push_back({"z0", line.z0});
        attributes.push_back({"eps_eff", line.eps_eff});
        attributes.push_back({"velocity", line.velocity});
      }
      if (field) {
        attributes.push_back({"undefined_field",
                              A::from_integer(static_cast<std::int64_t>(field->undefined_field))});
      }
      Hid root =
          c.own(H5Gopen2(h5.get(), "/", H5P_DEFAULT), H5Gclose, "cannot open the root group");
      for (const auto& [key, value] : attributes) {
        io_detail::write_attribute(c, root.get(), key, value);
      }
    }
    io_detail::finish_file(c, &h5);
  });
}

// The format of HSPICE's W element RLGC file ("Input Model 1: W Element, RLGC Model", True-Hspice
// Device Models Reference Manual, Release 2001.4, p. 6-25; Star-Hspice Manual 2001.2, "W Element
// Transmission Line Properties Inputs"): the numbers in order N (signal conductors), L0 (H/m),
// C0 (F/m), then the optional R0 (ohm/m), G0 (S/m), Rs, Gd; every matrix as its lower triangle,
// row by row; '*' starts a comment line. An optional matrix may be left out (zero) only when all
// after it are too: R0 and G0 are written as zeros, Rs and Gd left out.
void write_rlgc(const std::string& path, const ElectrostaticSolution& s) {
  const std::size_t n = s.capacitance.size();
  if (n == 0) {
    throw InvalidInput("cannot write the RLGC file '" + path +
                       "': the solution has no capacitance matrix (it needs two or more "
                       "conductors, or a ground plane)");
  }
  const auto& L = s.line.inductance;
  if (L.size() != n) {
    throw InvalidInput("cannot write the RLGC file '" + path +
                       "': the solution has no inductance "
                       "matrix (" +
                       str(L.size()) + " rows for " + str(n) + " signal conductors)");
  }
  auto triangle = [&](const char* name, const char* units,
                      const std::vector<std::vector<double>>* m) {
    std::string out = std::string("* ") + name + " (" + units + "), lower triangle\n";
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j <= i; ++j) {
        char number[32];
        std::snprintf(number, sizeof number, "%.12e", m ? (*m)[i][j] : 0.0);
        out += (j ? " " : "") + std::string(number);
      }
      out += "\n";
    }
    return out;
  };
  std::string signal;
  for (std::size_t i = 0; i < s.capacitance_conductors.size(); ++i) {
    signal += (i ? ", " : "") + str(s.capacitance_conductors[i]);
  }
  std::string text =
      "* HSPICE W element RLGC file (RLGCfile=...), lossless: R0 = G0 = 0\n"
      "* written by mlfma2d " +
      std::string(version()) +
      "; per unit length, SI units\n"
      "* signal conductors (in order): " +
      signal + "; reference: " +
      (s.reference < 0 ? std::string("the ground plane") : "conductor " + str(s.reference)) + "\n" +
      str(static_cast<long long>(n)) + "\n" + triangle("L0", "H/m", &L) +
      triangle("C0: the Maxwell capacitance matrix", "F/m", &s.capacitance) +
      triangle("R0", "ohm/m", nullptr) + triangle("G0", "S/m", nullptr);
  write_text_file(path, text);
}

}  // namespace mlfma2d
