// Writes the HDF5 seed corpus of fuzz_hdf5 (fuzz/corpus/hdf5/): small valid files in the layouts
// the readers meet (contiguous, chunked + deflate, compact; double, float, int types; targets;
// results with fields and attributes) and a few invalid ones. Built by hand, once:
//   g++ -std=c++17 make_hdf5_seeds.cpp -I/usr/include/hdf5/serial \
//       -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5 -o /tmp/make_hdf5_seeds
//   /tmp/make_hdf5_seeds ../corpus/hdf5
#include <hdf5.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

enum class Layout { Contiguous, Chunked, Compact };

void dataset(hid_t file, const char* name, const std::vector<double>& v, hid_t type,
             Layout layout = Layout::Contiguous, int rank = 1) {
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hsize_t dims[2] = {v.size(), 1};
  if (rank == 2) dims[0] = v.size() / 2, dims[1] = 2;
  if (layout == Layout::Chunked) {
    hsize_t chunk[2] = {2, dims[1]};
    H5Pset_chunk(dcpl, rank, chunk);
    H5Pset_deflate(dcpl, 6);
    H5Pset_shuffle(dcpl);
  } else if (layout == Layout::Compact) {
    H5Pset_layout(dcpl, H5D_COMPACT);
  }
  hid_t space = H5Screate_simple(rank, dims, nullptr);
  hid_t ds = H5Dcreate2(file, name, type, space, lcpl, dcpl, H5P_DEFAULT);
  if (!v.empty()) H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Dclose(ds);
  H5Sclose(space);
  H5Pclose(dcpl);
  H5Pclose(lcpl);
}

void number_attribute(hid_t file, const char* key, double value) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(file, key, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(a);
  H5Sclose(space);
}

void string_attribute(hid_t file, const char* key, const char* value, bool variable) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, variable ? H5T_VARIABLE : std::string(value).size());
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(file, key, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (variable) {
    H5Awrite(a, type, &value);
  } else {
    H5Awrite(a, type, value);
  }
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
}

template <class Body>
void file(const std::string& dir, const char* name, Body body) {
  const std::string path = dir + "/" + name;
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  body(f);
  H5Fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const std::vector<double> x = {0.1, 0.7, 0.3, 0.9}, y = {0.2, 0.4, 0.8, 0.6},
                            q = {1, -0.5, 2, 0.25};
  const hid_t f64 = H5T_IEEE_F64LE;
  file(dir, "points.h5", [&](hid_t f) {
    dataset(f, "/sources/x", x, f64);
    dataset(f, "/sources/y", y, f64);
    dataset(f, "/sources/q", q, f64);
  });
  file(dir, "points_targets_chunked.h5", [&](hid_t f) {
    dataset(f, "/sources/x", x, f64, Layout::Chunked);
    dataset(f, "/sources/y", y, f64, Layout::Chunked);
    dataset(f, "/sources/q", q, f64, Layout::Chunked);
    dataset(f, "/targets/x", {0.5, 0.25}, f64, Layout::Chunked);
    dataset(f, "/targets/y", {0.5, 0.75}, f64, Layout::Chunked);
  });
  file(dir, "points_compact_types.h5", [&](hid_t f) {
    dataset(f, "/sources/x", x, H5T_IEEE_F32BE, Layout::Compact);
    dataset(f, "/sources/y", {1, 2, 3, 4}, H5T_STD_I32LE, Layout::Compact);
    dataset(f, "/sources/q", {1, 0, 1, 0}, H5T_STD_U8LE, Layout::Compact);
  });
  file(dir, "result_field.h5", [&](hid_t f) {
    dataset(f, "/potential", q, f64);
    dataset(f, "/field/x", x, f64);
    dataset(f, "/field/y", y, f64);
    number_attribute(f, "eps", 1e-6);
    string_attribute(f, "backend", "cpu", true);
    string_attribute(f, "input", "plate.h5", false);
  });
  file(dir, "bad_rank2_lengths.h5", [&](hid_t f) {
    dataset(f, "/sources/x", x, f64, Layout::Contiguous, 2);
    dataset(f, "/sources/y", {1, 2, 3}, f64);
    dataset(f, "/sources/q", {1, 2}, f64);
    dataset(f, "/targets/x", {}, f64);
  });
  std::puts("seeds written");
  return 0;
}
