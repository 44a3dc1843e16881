#pragma once
// Small HDF5 files built by hand with the HDF5 C API: the malformed and unusual inputs the tests
// feed to the readers and the program.
#include <hdf5.h>

#include <cstddef>
#include <string>
#include <vector>

namespace mlfma2d::testing {

/// \brief A new HDF5 file (replacing any file at `path`), written dataset by dataset; missing
/// parent groups are created on the way.
class H5Writer {
 public:
  explicit H5Writer(const std::string& path);
  ~H5Writer();
  H5Writer(const H5Writer&) = delete;
  H5Writer& operator=(const H5Writer&) = delete;

  /// A dataset of doubles with shape `dims` (default: 1-D), stored as `file_type`.
  void numbers(const std::string& name, const std::vector<double>& v,
               std::vector<hsize_t> dims = {}, hid_t file_type = H5T_IEEE_F64LE);
  /// A dataset of doubles with shape `dims`, stored in chunks of shape `chunk`, deflated.
  void chunked(const std::string& name, const std::vector<double>& v, std::vector<hsize_t> dims,
               std::vector<hsize_t> chunk);
  /// A 1-D dataset of integers, stored as `file_type`.
  void integers(const std::string& name, const std::vector<long long>& v,
                hid_t file_type = H5T_STD_I64LE);
  /// A 1-D dataset of n doubles whose storage is never written (nor allocated), created with
  /// the dataset-creation properties `dcpl`.
  void unwritten(const std::string& name, std::size_t n, hid_t dcpl = H5P_DEFAULT);
  /// A 0-dimensional (scalar) dataset.
  void scalar(const std::string& name, double v);
  /// A 1-D dataset of n compound entries {double a, b}, not written.
  void compound(const std::string& name, std::size_t n);
  /// A 1-D dataset of n fixed-length strings, not written.
  void text(const std::string& name, std::size_t n);
  void group(const std::string& name);
  /// A double attribute on the root group.
  void attribute(const std::string& key, double value);
  /// A fixed-length (not variable-length) string attribute on the root group.
  void fixed_string_attribute(const std::string& key, const std::string& value);
  /// /sources/x, /sources/y (n distinct points) and /sources/q (n ones).
  void sources(std::size_t n);

 private:
  void dataset(const std::string& name, hid_t type, hid_t space, hid_t dcpl, const void* data,
               hid_t memory = H5T_NATIVE_DOUBLE);

  hid_t file_;
  hid_t lcpl_;
};

}  // namespace mlfma2d::testing
