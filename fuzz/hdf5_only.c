/* Reads a file the way mlfma2d's HDF5 reader does (H5Fis_hdf5, H5Fopen, H5Lexists, H5Dopen2,
 * H5Dget_type/space, H5Dread of /sources/x,y,q, /targets/x,y and /potential, and the root
 * group's attributes with H5Aiterate2 and H5Aread, as read_result does), with the HDF5 C API
 * alone and no mlfma2d code, to show that a crash or hang found by fuzz_hdf5 is libhdf5's own.
 * Plain C, no sanitizers:
 *   gcc fuzz/hdf5_only.c -I/usr/include/hdf5/serial -L/usr/lib/x86_64-linux-gnu/hdf5/serial \
 *       -lhdf5 -o /tmp/hdf5_only && /tmp/hdf5_only FILE.h5
 * Exit status 0: libhdf5 read or rejected the file cleanly; a signal: libhdf5 crashed. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

static void read_dataset(hid_t file, const char* group, const char* name) {
  if (H5Lexists(file, group, H5P_DEFAULT) <= 0) return;
  char path[64];
  snprintf(path, sizeof path, "%s/%s", group, name);
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return;
  hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
  if (ds < 0) return;
  hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
  hsize_t n = 0;
  if (space >= 0 && H5Sget_simple_extent_ndims(space) == 1 &&
      H5Sget_simple_extent_dims(space, &n, NULL) >= 0 && n > 0 && n < 100000000) {
    double* v = malloc(n * sizeof(double));
    if (v) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    free(v);
  }
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  H5Dclose(ds);
}

static herr_t read_attribute(hid_t root, const char* name, const H5A_info_t* info, void* data) {
  (void)info;
  (void)data;
  hid_t a = H5Aopen(root, name, H5P_DEFAULT);
  if (a < 0) return 0;
  hid_t type = H5Aget_type(a);
  if (type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0) {
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(type));
    char* s = NULL;
    if (H5Aread(a, mem, &s) >= 0) H5free_memory(s);
    H5Tclose(mem);
  } else if (type >= 0 && (H5Tget_class(type) == H5T_FLOAT || H5Tget_class(type) == H5T_INTEGER)) {
    double v;
    H5Aread(a, H5T_NATIVE_DOUBLE, &v);
  }
  if (type >= 0) H5Tclose(type);
  H5Aclose(a);
  return 0;
}

int main(int argc, char** argv) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  for (int i = 1; i < argc; ++i) {
    if (H5Fis_hdf5(argv[i]) <= 0) continue;
    hid_t f = H5Fopen(argv[i], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) continue;
    for (int g = 0; g < 2; ++g) {
      const char* group = g ? "/targets" : "/sources";
      read_dataset(f, group, "x");
      read_dataset(f, group, "y");
      if (!g) read_dataset(f, group, "q");
    }
    if (H5Lexists(f, "/potential", H5P_DEFAULT) > 0) {
      hid_t ds = H5Dopen2(f, "/potential", H5P_DEFAULT);
      if (ds >= 0) H5Dclose(ds);
    }
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    if (root >= 0) {
      H5Aiterate2(root, H5_INDEX_NAME, H5_ITER_INC, NULL, read_attribute, NULL);
      H5Gclose(root);
    }
    H5Fclose(f);
    printf("%s: read or rejected cleanly\n", argv[i]);
  }
  return 0;
}
