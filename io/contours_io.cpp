// Contour input files and solution output files of the electrostatic solve (HDF5), on the shared
// helpers of hdf5_io.cpp, and the HSPICE RLGC text file. Layout: electrostatics.hpp, docs/solve.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/hdf5_internal.hpp"
#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/fields.hpp"
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

// The datasets and root attributes of a solution file, named, described and in units as the
// library's tables say (a field without a unit: "1").
struct SolutionFields {
  const SolutionWriter& w;
  std::vector<std::pair<std::string, AttrValue>> attributes;
  std::string units;  // attribute_units: the attributes that have one, but the timings

  // `values` as dataset `name`: numbers, integers or a matrix (rows) by their type; `note`
  // added to a matrix's description.
  template <class T>
  void dataset(const std::string& name, const char* unit, const std::string& description,
               const std::vector<T>& values, const std::string& note = "") const {
    const char* units = *unit ? unit : "1";
    if constexpr (std::is_same_v<T, double>) {
      w.doubles(name, values, units, description);
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      w.matrix(name, values, units, description + note);
    } else {
      w.integers(name, values, description);
    }
  }
  // Field `member` of `object` as dataset `group` + its name.
  template <class S, class T>
  void member(const std::string& group, const S& object, T S::*member,
              const std::string& note = "") const {
    const Field<S, T> f = field_of(member);
    dataset(group + f.name, f.unit, f.description, object.*member, note);
  }
  // Every list of numbers of `object` as a dataset in `group` ("/panels/").
  template <class S>
  void lists(const std::string& group, const S& object, const std::string& note = "") const {
    for_each_field(object, [&](const auto& f, const auto& value) {
      if constexpr (is_numbers_v<std::decay_t<decltype(value)>>) {
        dataset(group + f.name, f.unit, f.description, value, note);
      }
    });
  }
  // One dataset per field of the rows' struct in `group` ("/meshes/"), row i's value at i;
  // `except`: a field left out.
  template <class S, class U = int>
  void columns(const std::string& group, const std::vector<S>& rows, U S::*except = nullptr) const {
    FieldTable<S>::visit([&](const auto& f) {
      if (except && is_field(f, except)) return;
      std::vector<std::decay_t<decltype(std::declval<const S&>().*f.member)>> column;
      for (const S& row : rows) column.push_back(row.*f.member);
      dataset(group + f.name, f.unit, f.description, column);
    });
  }
  // A root attribute, flags and counts as integers.
  template <class T>
  void attribute(const std::string& name, const char* unit, const T& value) {
    if constexpr (std::is_same_v<T, std::string>) {
      attributes.emplace_back(name, AttrValue(value));
    } else if constexpr (std::is_integral_v<T>) {
      attributes.emplace_back(name, AttrValue::from_integer(static_cast<std::int64_t>(value)));
    } else {
      attributes.emplace_back(name, AttrValue(value));
    }
    if (*unit && name.rfind("timing_", 0) != 0) units += name + " " + unit + "; ";
  }
  // Every number, flag and text of `object` as a root attribute where `keep(field)` says, seconds
  // of a phase (ElectrostaticTimings) as timing_<phase>.
  template <class S, class Keep>
  void scalars(const S& object, Keep keep) {
    for_each_field(object, [&](const auto& f, const auto& value) {
      using T = std::decay_t<decltype(value)>;
      if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
        const bool phase = std::is_same_v<S, ElectrostaticTimings> && std::string(f.unit) == "s";
        if (keep(f)) attribute((phase ? "timing_" : "") + std::string(f.name), f.unit, value);
      }
    });
  }
};

// The group of a field's rows or parts: "/<name>/".
template <class S, class T>
std::string group_of(T S::*member) {
  return std::string("/") + field_of(member).name + "/";
}

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
      SolutionFields out{w, {}, ""};
      using Sol = ElectrostaticSolution;
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
      const Field<Sol, std::vector<double>> potentials = field_of(&Sol::potentials);
      out.dataset("/conductors/potential", potentials.unit, potentials.description, s.potentials);
      out.member("/conductors/", s, &Sol::charge);
      w.texts("/conductors/kind", kind,
              "signal, or reference (the ground of the capacitance matrix; over a ground plane "
              "the plane is the reference and every conductor is a signal conductor)");

      // Line parameters: C, the line's matrices and lists, its modes.
      out.member("/", s, &Sol::capacitance_conductors);
      out.member("/", s, &Sol::capacitance, signal);
      out.lists("/", line, signal);
      out.columns(group_of(&LineParameters::modes), line.modes);

      // Panels, with the charge on each.
      const std::string panels = group_of(&Sol::panels);
      out.lists(panels, s.panels);
      out.member(panels, s, &Sol::sigma);
      out.member(panels, s, &Sol::sigma_total);

      // The meshes of an accuracy-driven solve, and the GMRES solves of the last (whose
      // residual histories differ in length: no matrix).
      out.columns(group_of(&Sol::meshes), s.meshes);
      out.columns(group_of(&Sol::solves), s.solves, &SolveStats::history);

      if (field) {
        w.doubles("/targets/x", tx, "m", "target x");
        w.doubles("/targets/y", ty, "m", "target y");
        out.lists("/targets/", *field);
      }

      // Settings and figures: the solution's scalars (the plane's height over a plane only),
      // the panel count, the line's flags and (one signal conductor, line parameters computed)
      // its Z0, eps_eff and velocity, the timings. Unit of each number: attribute_units.
      const bool one_signal = s.capacitance.size() == 1 && line.inductance.size() == 1;
      out.attribute("version", "", std::string(version()));
      out.attribute("method", "", method_of(s));
      out.attribute("conductors", "", K);
      out.attribute(field_of(&Sol::panels).name, "", s.panels.size());
      out.scalars(
          s, [&](const auto& f) { return s.ground_plane || !is_field(f, &Sol::ground_plane_y); });
      out.scalars(line, [&](const auto& f) {
        return one_signal || std::is_same_v<std::decay_t<decltype(line.*f.member)>, bool>;
      });
      out.scalars(s.timings, [](const auto&) { return true; });
      if (field) out.scalars(*field, [](const auto&) { return true; });
      out.attribute("attribute_units", "",
                    out.units +
                        "timing_* s; the rest 1. accuracy_target 0: one solve on a fixed mesh; "
                        "accuracy_estimate NaN: not estimated; accuracy_met 1 only when the "
                        "estimate was checked against the target");
      Hid root =
          c.own(H5Gopen2(h5.get(), "/", H5P_DEFAULT), H5Gclose, "cannot open the root group");
      for (const auto& [key, value] : out.attributes) {
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
