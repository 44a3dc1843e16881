#pragma once
// HDF5 helpers shared by the readers and writers in io/ (hdf5_io.cpp defines them; contours_io.cpp
// uses them too). Not installed. Every call is checked; every handle is owned by an Hid.
#include <hdf5.h>

#include <string>
#include <vector>

#include "io/io_internal.hpp"

namespace mlfma2d::io_detail {

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Hid {
 public:
  Hid(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Hid(Hid&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Hid& operator=(Hid&&) = delete;
  ~Hid() { close(); }
  hid_t get() const { return id_; }
  // Closes now and reports the result: closing a file is where HDF5 flushes it.
  herr_t close() {
    const herr_t rc = id_ >= 0 ? close_(id_) : 0;
    id_ = -1;
    return rc;
  }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// The file being read or written; turns failed calls into IoError naming it.
struct Ctx {
  std::string path;
  bool writing = false;

  [[noreturn]] void fail(const std::string& why) const;
  Hid own(hid_t id, herr_t (*close)(hid_t), const std::string& what) const {
    if (id < 0) fail(what);
    return Hid(id, close);
  }
  void check(herr_t rc, const std::string& what) const {
    if (rc < 0) fail(what);
  }
};

Hid open_file(const Ctx& c);
Hid create_file(const Ctx& c, const std::string& tmp);
void finish_file(const Ctx& c, Hid* file);
// Whether `name` (absolute, e.g. /sources/x) exists; an external link on the way fails.
bool exists(const Ctx& c, hid_t file, const std::string& name);
// A numeric dataset's values as doubles, row-major, and its shape.
struct Array {
  std::vector<hsize_t> dims;
  std::vector<double> v;
};
// Entries [first, first + count) of a dataset's last dimension.
struct Range {
  hsize_t first = 0, count = 0;
};
// A numeric dataset of rank 1..max_rank as doubles (HDF5 converts integers and single
// precision), its stored size checked against the file before anything is allocated; another
// rank fails with "NAME is R-dimensional, expected " + expected. With `part`: only those entries
// of the last dimension (every index of the others), read as a hyperslab; dims then has
// part->count last.
Array read_array(const Ctx& c, hid_t file, const std::string& name, int max_rank,
                 const std::string& expected, const Range* part = nullptr);
// The shape of such a dataset, with read_array's checks, no values read.
std::vector<hsize_t> dataset_shape(const Ctx& c, hid_t file, const std::string& name, int max_rank,
                                   const std::string& expected);
// A 1-D numeric dataset (read_array of rank 1).
std::vector<double> read_vector(const Ctx& c, hid_t file, const std::string& name,
                                const Range* part = nullptr);
// "(3, 1000)".
std::string shape_text(const std::vector<hsize_t>& dims);
// Link-creation properties that create missing parent groups on the way.
Hid parents_created(const Ctx& c);
// A 1-D dataset of n entries stored as `file_type`, written from `data` of `mem_type`.
Hid write_dataset(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name, hid_t file_type,
                  hid_t mem_type, hsize_t n, const void* data);
// A dataset of shape `dims`, nothing written yet.
Hid create_dataset(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name, hid_t file_type,
                   const std::vector<hsize_t>& dims);
// Entries [first, first + count) of the last dimension of dataset `ds` (every index of the
// others), from `data` (row-major doubles of that block).
void write_part(const Ctx& c, hid_t ds, const std::string& name, hsize_t first, hsize_t count,
                const double* data);
// The same with shape `dims` (row-major data).
Hid write_dataset(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name, hid_t file_type,
                  hid_t mem_type, const std::vector<hsize_t>& dims, const void* data);
void write_vector(const Ctx& c, hid_t file, hid_t lcpl, const std::string& name,
                  const std::vector<double>& v);
// A C string type of `size` bytes (or H5T_VARIABLE) in character set `cset`: a memory type must
// match the stored one's set, as HDF5 does not convert between ASCII and UTF-8.
Hid string_type(const Ctx& c, size_t size, H5T_cset_t cset);
// A scalar attribute (number or string) on the object `on`.
void write_attribute(const Ctx& c, hid_t on, const std::string& key, const AttrValue& value);
// Reads a scalar number or string attribute; false for any other kind (left by other tools).
bool read_attribute(const Ctx& c, hid_t root, const std::string& key, AttrValue* out);
// The table writer of the HDF5 FormatIo (hdf5_io.cpp; the point and result files:
// hdf5_points.cpp).
void hdf5_write_table(const std::string& tmp, const std::string& path, const Table& table);

}  // namespace mlfma2d::io_detail
