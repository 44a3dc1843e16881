// HDF5 back end, through the C API. Every call is checked; every handle is owned by an Hid, so it
// is closed on every path, exceptions included.
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "io/hdf5_internal.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::io_detail {
namespace {

// HDF5's own description of the innermost error on the stack, e.g. "file signature not found".
herr_t take_innermost(unsigned n, const H5E_error2_t* e, void* out) {
  if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
  return 0;
}

}  // namespace

void Ctx::fail(const std::string& why) const {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_innermost, &detail);
  H5Eclear2(H5E_DEFAULT);
  const std::string what = detail.empty() ? why : why + " (HDF5: " + detail + ")";
  throw IoError(writing ? cannot_write(path, what) : path + ": " + what);
}

namespace {

// The library prints its error stack to stderr by default; we report through exceptions instead.
void silence() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

}  // namespace

Hid open_file(const Ctx& c) {
  silence();
  const htri_t is_hdf5 = H5Fis_hdf5(c.path.c_str());
  if (is_hdf5 == 0) c.fail("not an HDF5 file");
  if (is_hdf5 < 0) c.fail("cannot read as HDF5");
  return c.own(H5Fopen(c.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
               "cannot open the HDF5 file");
}

Hid create_file(const Ctx& c, const std::string& tmp) {
  silence();
  return c.own(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
               "cannot create the HDF5 file");
}

void finish_file(const Ctx& c, Hid* file) {
  c.check(file->close(), "cannot complete the file");
}

namespace {

// Fails when `name` is a link into another file: it is not followed (the other file may be
// missing, or any file on the machine), and is said for what it is.
void refuse_external_link(const Ctx& c, hid_t file, const std::string& name) {
  H5L_info_t info{};
  if (H5Lget_info(file, name.c_str(), &info, H5P_DEFAULT) < 0 || info.type != H5L_TYPE_EXTERNAL) {
    return;
  }
  std::vector<char> value(info.u.val_size + 1, '\0');
  const char* target_file = nullptr;
  const char* target = nullptr;
  unsigned flags = 0;
  std::string where;
  if (H5Lget_val(file, name.c_str(), value.data(), info.u.val_size, H5P_DEFAULT) >= 0 &&
      H5Lunpack_elink_val(value.data(), info.u.val_size, &flags, &target_file, &target) >= 0) {
    where = std::string(" to ") + (target_file ? target_file : "?") + ":" + (target ? target : "?");
  }
  c.fail(name + " is an external link" + where + ", which is not followed");
}

}  // namespace

// Whether `name` (absolute, e.g. /sources/x) exists. Each prefix is tested in turn because
// H5Lexists fails, rather than answering false, when an intermediate group is missing.
bool exists(const Ctx& c, hid_t file, const std::string& name) {
  for (std::size_t slash = name.find('/', 1);; slash = name.find('/', slash + 1)) {
    const std::string prefix = name.substr(0, slash);
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    refuse_external_link(c, file, prefix);
    if (slash == std::string::npos) return true;
  }
}

namespace {

std::string class_name(H5T_class_t c) {
  switch (c) {
    case H5T_STRING:
      return "string";
    case H5T_COMPOUND:
      return "compound";
    case H5T_ENUM:
      return "enum";
    case H5T_ARRAY:
      return "array";
    case H5T_VLEN:
      return "variable-length";
    case H5T_REFERENCE:
      return "reference";
    default:
      return "non-numeric";
  }
}

// Chunked data may be compressed; deflate's ratio is at most 1032:1, so a chunked dataset that
// claims more than this many times its stored size is corrupt (or a decompression bomb).
constexpr double kMaxCompression = 1100;

// Checks that the stored data can hold the n entries of `elem` bytes that the header claims,
// before anything is allocated or read: libhdf5 1.10 trusts a corrupt header and reads past its
// own buffers (compact layout, found by fuzz_hdf5; docs/fuzzing.md), and a claimed length alone
// must not make us allocate gigabytes.
void check_storage(const Ctx& c, hid_t file, hid_t ds, const std::string& name, int rank, hsize_t n,
                   std::size_t elem) {
  if (n == 0) return;
  Hid dcpl = c.own(H5Dget_create_plist(ds), H5Pclose, "cannot read the layout of " + name);
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  hsize_t file_size = 0;
  c.check(H5Fget_filesize(file, &file_size), "cannot read the file size");
  const double need = double(n) * double(elem);  // exact enough for comparisons of sizes
  const hsize_t stored = H5Dget_storage_size(ds);
  const std::string claims =
      name + " claims " + std::to_string(n) + " entries of " + std::to_string(elem) + " bytes";
  switch (layout) {
    case H5D_COMPACT:
      if (need != double(stored)) {
        c.fail(claims + " but stores " + std::to_string(stored) + " bytes (corrupt file)");
      }
      return;
    case H5D_CONTIGUOUS: {
      if (H5Pget_external_count(dcpl.get()) != 0) {
        c.fail(name + " keeps its data in external files, which are not read");
      }
      const haddr_t offset = H5Dget_offset(ds);
      if (offset == HADDR_UNDEF || stored == 0) c.fail(name + " has no data stored");
      if (need > double(stored) || double(offset) + need > double(file_size)) {
        c.fail(claims + " but the file holds only " + std::to_string(file_size) +
               " bytes (truncated or corrupt file)");
      }
      return;
    }
    case H5D_CHUNKED: {
      // libhdf5 allocates a buffer for each stored chunk, of its stored size, and one whole
      // chunk to read it: corrupt sizes must not make it allocate gigabytes (found by fuzz_hdf5:
      // a chunk stored "with 4294967290 bytes" in a 17 kB file, malloc(4294967290) in H5Dread).
      if (stored == 0) c.fail(name + " has no data stored");
      if (double(stored) > double(file_size)) {
        c.fail(name + " stores " + std::to_string(stored) + " bytes in a file of " +
               std::to_string(file_size) + " bytes (corrupt file)");
      }
      hsize_t dims[H5S_MAX_RANK] = {};
      if (H5Pget_chunk(dcpl.get(), H5S_MAX_RANK, dims) != rank) {
        c.fail("cannot read the chunk size of " + name + " (corrupt file)");
      }
      double chunk = 1;  // entries of one chunk
      for (int k = 0; k < rank; ++k) chunk *= double(dims[k]);
      if (chunk == 0) c.fail("cannot read the chunk size of " + name + " (corrupt file)");
      const double chunk_bytes = chunk * double(elem);
      if (chunk_bytes > kMaxCompression * double(file_size) + 67108864.0) {  // + 64 MiB
        c.fail(name + " has chunks of " + format("%.0f", chunk) +
               " entries, implausible in a file of " + std::to_string(file_size) +
               " bytes (corrupt file)");
      }
      // Compressed chunks hold at most kMaxCompression times their size; unwritten chunks (read
      // as fill values) are allowed up to one chunk, the partial last one. A header claiming
      // more is corrupt (found by fuzz_hdf5: 262144 entries in 37 bytes, 131072 chunks).
      if (need > kMaxCompression * double(stored) + chunk_bytes) {
        c.fail(claims + " but stores " + std::to_string(stored) + " bytes (corrupt file)");
      }
      return;
    }
    default:
      c.fail(name + " has a storage layout that is not read (virtual or unknown)");
  }
}

}  // namespace

namespace {

// An open numeric dataset of rank 1..max_rank, its shape and its stored size checked against
// the file (read_array's checks, before anything is allocated).
struct Opened {
  Hid ds;
  std::vector<hsize_t> dims;
};

Opened open_numeric(const Ctx& c, hid_t file, const std::string& name, int max_rank,
                    const std::string& expected) {
  if (!exists(c, file, name)) c.fail("dataset " + name + " not found");
  Hid ds = c.own(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, name + " is not a dataset");
  Hid type = c.own(H5Dget_type(ds.get()), H5Tclose, "cannot read the type of " + name);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
    c.fail(name + " has " + class_name(cls) + " type, expected numbers");
  }
  Hid space = c.own(H5Dget_space(ds.get()), H5Sclose, "cannot read the shape of " + name);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) c.fail("cannot read the shape of " + name);
  if (rank < 1 || rank > max_rank) {
    c.fail(name + " is " + std::to_string(rank) + "-dimensional, expected " + expected);
  }
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  c.check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr),
          "cannot read the shape of " + name);
  double entries = 1;
  for (const hsize_t d : dims) entries *= double(d);
  const std::size_t elem = H5Tget_size(type.get());
  if (elem == 0) c.fail("cannot read the type of " + name);
  // The product of the dimensions may overflow 64 bits in a corrupt header: as a double first.
  if (entries > 9e18) c.fail(name + " claims " + shape_text(dims) + " entries (corrupt file)");
  check_storage(c, file, ds.get(), name, rank, hsize_t(entries), elem);
  return {std::move(ds), std::move(dims)};
}

}  // namespace

std::vector<hsize_t> dataset_shape(const Ctx& c, hid_t file, const std::string& name, int max_rank,
                                   const std::string& expected) {
  return open_numeric(c, file, name, max_rank, expected).dims;
}

// A numeric dataset of rank 1..max_rank as doubles (HDF5 converts integers and single
// precision), with its shape; `expected` names the shapes accepted, for the message. With
// `part`, only the entries [first, first + count) of the last dimension (every index of the
// others): a hyperslab, so a rank reads its share of a file alone.
Array read_array(const Ctx& c, hid_t file, const std::string& name, int max_rank,
                 const std::string& expected, const Range* part) {
  Opened o = open_numeric(c, file, name, max_rank, expected);
  Array a;
  a.dims = o.dims;
  std::vector<hsize_t> start(a.dims.size(), 0);
  if (part) {
    if (part->first > a.dims.back() || part->count > a.dims.back() - part->first) {
      c.fail(name + " has " + std::to_string(a.dims.back()) +
             " entries in its last dimension: " + "entries " + std::to_string(part->first) +
             " to " + std::to_string(part->first + part->count) + " are not there");
    }
    start.back() = part->first;
    a.dims.back() = part->count;
  }
  double entries = 1;
  for (const hsize_t d : a.dims) entries *= double(d);
  const hsize_t n = hsize_t(entries);
  try {
    a.v.resize(n);
  } catch (const std::bad_alloc&) {
    c.fail("not enough memory to read the " + std::to_string(n) + " entries of " + name);
  } catch (const std::length_error&) {
    c.fail("not enough memory to read the " + std::to_string(n) + " entries of " + name);
  }
  if (n == 0) return a;
  if (!part) {
    c.check(H5Dread(o.ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.v.data()),
            "cannot read " + name);
    return a;
  }
  Hid file_space = c.own(H5Dget_space(o.ds.get()), H5Sclose, "cannot read the shape of " + name);
  c.check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                              a.dims.data(), nullptr),
          "cannot select a part of " + name);
  Hid memory = c.own(H5Screate_simple(int(a.dims.size()), a.dims.data(), nullptr), H5Sclose,
                     "cannot create dataspace");
  c.check(H5Dread(o.ds.get(), H5T_NATIVE_DOUBLE, memory.get(), file_space.get(), H5P_DEFAULT,
                  a.v.data()),
          "cannot read " + name);
  return a;
}

std::vector<double> read_vector(const Ctx& c, hid_t file, const std::string& name,
                                const Range* part) {
  return read_array(c, file, name, 1, "1-dimensional", part).v;
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  std::string out = "(";
  for (std::size_t k = 0; k < dims.size(); ++k) {
    out += (k ? ", " : "") + std::to_string(dims[k]);
  }
  return out + ")";
}

// Link-creation properties that create missing parent groups (/sources, /field) on the way.
Hid parents_created(const Ctx& c) {
  Hid lcpl = c.own(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "cannot create property list");
  c.check(H5Pset_create_intermediate_group(lcpl.get(), 1), "cannot set property list");
  return lcpl;
}

// A 1-D dataset of n entries stored as `file_type`, written from `data` of `mem_type`.
Hid write_dataset(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name, hid_t file_type,
                  hid_t mem_type, hsize_t n, const void* data) {
  return write_dataset(c, file, lcpl, name, file_type, mem_type, std::vector<hsize_t>{n}, data);
}

Hid create_dataset(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name, hid_t file_type,
                   const std::vector<hsize_t>& dims) {
  Hid space = c.own(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose,
                    "cannot create dataspace");
  return c.own(
      H5Dcreate2(file, name.c_str(), file_type, space.get(), lcpl, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, "cannot create dataset " + name);
}

Hid write_dataset(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name, hid_t file_type,
                  hid_t mem_type, const std::vector<hsize_t>& dims, const void* data) {
  hsize_t n = 1;
  for (const hsize_t d : dims) n *= d;
  Hid ds = create_dataset(c, file, lcpl, name, file_type, dims);
  if (n > 0) {
    c.check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
            "cannot write dataset " + name);
  }
  return ds;
}

void write_part(const Ctx& c, hid_t ds, const std::string& name, hsize_t first, hsize_t count,
                const double* data) {
  if (count == 0) return;
  Hid space = c.own(H5Dget_space(ds), H5Sclose, "cannot read the shape of " + name);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1) c.fail("cannot read the shape of " + name);
  const std::size_t r = static_cast<std::size_t>(rank);
  std::vector<hsize_t> dims(r), start(r, 0);
  c.check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr),
          "cannot read the shape of " + name);
  start.back() = first;
  dims.back() = count;
  c.check(
      H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, dims.data(), nullptr),
      "cannot select a part of " + name);
  Hid memory =
      c.own(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose, "cannot create dataspace");
  c.check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT, data),
          "cannot write dataset " + name);
}

void write_vector(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name,
                  const std::vector<double>& v) {
  write_dataset(c, file, lcpl, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.size(), v.data());
}

Hid string_type(const Ctx& c, size_t size, H5T_cset_t cset) {
  Hid t = c.own(H5Tcopy(H5T_C_S1), H5Tclose, "cannot create string type");
  c.check(H5Tset_size(t.get(), size), "cannot set string size");
  c.check(H5Tset_cset(t.get(), cset), "cannot set string character set");
  return t;
}

// A scalar attribute: a string (UTF-8, variable length), a 64-bit integer or a double.
void write_attribute(const Ctx& c, hid_t on, const std::string& key, const AttrValue& value) {
  Hid space = c.own(H5Screate(H5S_SCALAR), H5Sclose, "cannot create dataspace");
  Hid type = value.is_string ? string_type(c, H5T_VARIABLE, H5T_CSET_UTF8)
                             : c.own(H5Tcopy(value.is_integer ? H5T_STD_I64LE : H5T_IEEE_F64LE),
                                     H5Tclose, "cannot copy type");
  Hid attr = c.own(H5Acreate2(on, key.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                   H5Aclose, "cannot create attribute '" + key + "'");
  const char* text = value.text.c_str();
  const herr_t rc = value.is_string    ? H5Awrite(attr.get(), type.get(), &text)
                    : value.is_integer ? H5Awrite(attr.get(), H5T_NATIVE_INT64, &value.integer)
                                       : H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value.number);
  c.check(rc, "cannot write attribute '" + key + "'");
}

// Reads a scalar number or string attribute; false for any other kind (left by other tools).
bool read_attribute(const Ctx& c, hid_t root, const std::string& key, AttrValue* out) {
  const std::string what = "cannot read attribute '" + key + "'";
  Hid attr = c.own(H5Aopen(root, key.c_str(), H5P_DEFAULT), H5Aclose, what);
  Hid space = c.own(H5Aget_space(attr.get()), H5Sclose, what);
  if (H5Sget_simple_extent_npoints(space.get()) != 1) return false;
  Hid type = c.own(H5Aget_type(attr.get()), H5Tclose, what);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls == H5T_INTEGER) {
    std::int64_t v = 0;
    c.check(H5Aread(attr.get(), H5T_NATIVE_INT64, &v), what);
    *out = AttrValue::from_integer(v);
    return true;
  }
  if (cls == H5T_FLOAT) {
    double v = 0;
    c.check(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v), what);
    *out = AttrValue(v);
    return true;
  }
  if (cls != H5T_STRING) return false;
  const H5T_cset_t cset = H5Tget_cset(type.get());
  const htri_t variable = H5Tis_variable_str(type.get());
  if (variable < 0) c.fail(what);
  if (variable) {
    Hid mem = string_type(c, H5T_VARIABLE, cset);
    char* s = nullptr;
    c.check(H5Aread(attr.get(), mem.get(), &s), what);
    *out = AttrValue(std::string(s ? s : ""));
    H5free_memory(s);
  } else {
    // One byte more than stored, so the terminating NUL always fits.
    const size_t size = H5Tget_size(type.get()) + 1;
    Hid mem = string_type(c, size, cset);
    std::vector<char> buf(size, '\0');
    c.check(H5Aread(attr.get(), mem.get(), buf.data()), what);
    *out = AttrValue(std::string(buf.data(), strnlen(buf.data(), size)));
  }
  return true;
}

void hdf5_write_table(const std::string& tmp, const std::string& path, const Table& table) {
  const Ctx c{path, true};
  Hid file = create_file(c, tmp);
  {
    const std::string where = "/" + table.group;
    Hid group =
        c.own(H5Gcreate2(file.get(), table.group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
              H5Gclose, "cannot create group " + where);
    for (const auto& [name, text] : table.attributes) {
      write_attribute(c, group.get(), name, AttrValue(text));
    }
    for (const TableColumn& column : table.columns) {
      const std::string name = where + "/" + column.name;
      std::vector<const char*> texts;
      for (const std::string& t : column.texts) texts.push_back(t.c_str());
      Hid text = string_type(c, H5T_VARIABLE, H5T_CSET_UTF8);
      Hid ds = column.is_text
                   ? write_dataset(c, file.get(), H5P_DEFAULT, name, text.get(), text.get(),
                                   texts.size(), texts.data())
                   : write_dataset(c, file.get(), H5P_DEFAULT, name, H5T_IEEE_F64LE,
                                   H5T_NATIVE_DOUBLE, column.numbers.size(), column.numbers.data());
      write_attribute(c, ds.get(), "unit", AttrValue(column.unit));
    }
  }
  finish_file(c, &file);
}

}  // namespace mlfma2d::io_detail
