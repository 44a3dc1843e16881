#include "tests/h5_writer.hpp"

#include <cmath>

namespace mlfma2d::testing {

H5Writer::H5Writer(const std::string& path)
    : file_(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)),
      lcpl_(H5Pcreate(H5P_LINK_CREATE)) {
  H5Pset_create_intermediate_group(lcpl_, 1);
}

H5Writer::~H5Writer() {
  H5Pclose(lcpl_);
  H5Fclose(file_);
}

// A dataset of `type` and `space`; `data` (of `memory` type) written unless null.
void H5Writer::dataset(const std::string& name, hid_t type, hid_t space, hid_t dcpl,
                       const void* data, hid_t memory) {
  const hid_t ds = H5Dcreate2(file_, name.c_str(), type, space, lcpl_, dcpl, H5P_DEFAULT);
  if (data) H5Dwrite(ds, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(ds);
  H5Sclose(space);
}

void H5Writer::numbers(const std::string& name, const std::vector<double>& v,
                       std::vector<hsize_t> dims, hid_t file_type) {
  if (dims.empty()) dims = {v.size()};
  dataset(name, file_type, H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
          H5P_DEFAULT, v.empty() ? nullptr : v.data());
}

void H5Writer::chunked(const std::string& name, const std::vector<double>& v,
                       std::vector<hsize_t> dims, std::vector<hsize_t> chunk) {
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
  H5Pset_deflate(dcpl, 6);
  dataset(name, H5T_IEEE_F64LE,
          H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), dcpl, v.data());
  H5Pclose(dcpl);
}

void H5Writer::integers(const std::string& name, const std::vector<long long>& v, hid_t file_type) {
  const hsize_t dims = v.size();
  dataset(name, file_type, H5Screate_simple(1, &dims, nullptr), H5P_DEFAULT,
          v.empty() ? nullptr : v.data(), H5T_NATIVE_LLONG);
}

void H5Writer::unwritten(const std::string& name, std::size_t n, hid_t dcpl) {
  const hsize_t dims = n;
  dataset(name, H5T_IEEE_F64LE, H5Screate_simple(1, &dims, nullptr), dcpl, nullptr);
}

void H5Writer::scalar(const std::string& name, double v) {
  dataset(name, H5T_IEEE_F64LE, H5Screate(H5S_SCALAR), H5P_DEFAULT, &v);
}

void H5Writer::compound(const std::string& name, std::size_t n) {
  const hid_t type = H5Tcreate(H5T_COMPOUND, 16);
  H5Tinsert(type, "a", 0, H5T_NATIVE_DOUBLE);
  H5Tinsert(type, "b", 8, H5T_NATIVE_DOUBLE);
  const hsize_t dims = n;
  dataset(name, type, H5Screate_simple(1, &dims, nullptr), H5P_DEFAULT, nullptr);
  H5Tclose(type);
}

void H5Writer::text(const std::string& name, std::size_t n) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, 8);
  const hsize_t dims = n;
  dataset(name, type, H5Screate_simple(1, &dims, nullptr), H5P_DEFAULT, nullptr);
  H5Tclose(type);
}

void H5Writer::group(const std::string& name) {
  H5Gclose(H5Gcreate2(file_, name.c_str(), lcpl_, H5P_DEFAULT, H5P_DEFAULT));
}

void H5Writer::attribute(const std::string& key, double value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr =
      H5Acreate2(file_, key.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(attr);
  H5Sclose(space);
}

void H5Writer::fixed_string_attribute(const std::string& key, const std::string& value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size());
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Acreate2(file_, key.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, type, value.data());
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
}

void H5Writer::sources(std::size_t n) {
  std::vector<double> x(n), y(n), q(n, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = std::sin(1.0 + double(i));
    y[i] = std::cos(2.0 + double(i));
  }
  numbers("/sources/x", x);
  numbers("/sources/y", y);
  numbers("/sources/q", q);
}

}  // namespace mlfma2d::testing
