#!/usr/bin/env python3
"""Convert an mlfma2d HDF5 point file into the input of the FMM2D benchmark driver (driver.f90).

    python3 to_bin.py IN.h5 OUT.bin --nd ND [--dipoles] [--seed S]

Reads /sources/x, /sources/y (N) and /sources/q ((N) or (nd_file, N)) from IN.h5 (docs/files.md).
Charges, nd x N: the file's q rows when it holds ND of them (or more: the first ND); otherwise
density 0 is the file's first row of q and densities 1..ND-1 are uniform in [0, 1) from
numpy.random.default_rng(S) (density 0 too when the file has no /sources/q). With --dipoles,
dipole strengths (ND x N, uniform in [0, 1)) and unit dipole vectors (one per density and
point, of uniform angle in [0, 2 pi)) are drawn from the same generator after the charges; the
file's own dipoles, if any, are not used. The values go to FMM2D as they are (its charge,
dipstr, dipvec): FMM2D's dipole term has the opposite sign to mlfma2d's (docs/math.md 1.3),
which does not matter for timings.

OUT.bin, little-endian, no padding (rfmm2d's array shapes, Fortran order: first index fastest):
    char[8]  b"FMM2DIN1"
    int64    n, nd, has_dipoles (0 or 1)
    float64  sources(2, n)      x0, y0, x1, y1, ...
    float64  charge(nd, n)      the nd densities of point 0, then of point 1, ...
    if has_dipoles:
    float64  dipstr(nd, n)
    float64  dipvec(nd, 2, n)   per point: the nd x components, then the nd y components

The HDF5 file is read with h5py when it is installed; otherwise through ctypes from the HDF5
C library (the one in $MLFMA2D_HDF5_LIB, .gpu/ of the repository, or the system's), so that the
script runs where only NumPy is (the GPU host). Prints one line saying what it wrote.
"""
import argparse
import ctypes
import ctypes.util
import glob
import os
import sys

import numpy as np

MAGIC = b"FMM2DIN1"


def read_h5py(path, names):
    import h5py
    out = {}
    with h5py.File(path, "r") as f:
        for name in names:
            out[name] = np.asarray(f[name][...], dtype=np.float64) if name in f else None
    return out


def _hdf5_lib():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if os.environ.get("MLFMA2D_HDF5_LIB"):
        candidates.append(os.environ["MLFMA2D_HDF5_LIB"])
    for d in (os.path.join(here, "..", ".gpu"), os.path.join(here, "..", "..", "..", ".gpu")):
        candidates += sorted(glob.glob(os.path.join(d, "libhdf5*.so*")))
    for name in ("hdf5_serial", "hdf5"):
        found = ctypes.util.find_library(name)
        if found:
            candidates.append(found)
    candidates += ["libhdf5_serial.so.103", "libhdf5.so.103", "libhdf5.so.310", "libhdf5.so"]
    for c in candidates:
        if "_hl" in os.path.basename(c) or "_cpp" in os.path.basename(c):
            continue
        try:
            return ctypes.CDLL(c)
        except OSError:
            pass
    sys.exit("to_bin.py: neither h5py nor the HDF5 C library (set MLFMA2D_HDF5_LIB) was found")


def read_ctypes(path, names):
    lib = _hdf5_lib()
    hid = ctypes.c_int64  # hid_t is 64-bit since HDF5 1.10
    lib.H5open()
    lib.H5Fopen.restype = hid
    lib.H5Fopen.argtypes = [ctypes.c_char_p, ctypes.c_uint, hid]
    lib.H5Lexists.restype = ctypes.c_int
    lib.H5Lexists.argtypes = [hid, ctypes.c_char_p, hid]
    lib.H5Dopen2.restype = hid
    lib.H5Dopen2.argtypes = [hid, ctypes.c_char_p, hid]
    lib.H5Dget_space.restype = hid
    lib.H5Dget_space.argtypes = [hid]
    lib.H5Sget_simple_extent_ndims.restype = ctypes.c_int
    lib.H5Sget_simple_extent_ndims.argtypes = [hid]
    lib.H5Sget_simple_extent_dims.restype = ctypes.c_int
    lib.H5Sget_simple_extent_dims.argtypes = [hid, ctypes.c_void_p, ctypes.c_void_p]
    lib.H5Dread.restype = ctypes.c_int
    lib.H5Dread.argtypes = [hid, hid, hid, hid, hid, ctypes.c_void_p]
    for f in ("H5Sclose", "H5Dclose", "H5Fclose"):
        getattr(lib, f).argtypes = [hid]
    native_double = hid.in_dll(lib, "H5T_NATIVE_DOUBLE_g").value
    H5F_ACC_RDONLY, H5P_DEFAULT, H5S_ALL = 0, 0, 0
    f = lib.H5Fopen(os.fsencode(path), H5F_ACC_RDONLY, H5P_DEFAULT)
    if f < 0:
        sys.exit("to_bin.py: cannot open %s" % path)
    out = {}
    try:
        for name in names:
            group = name.rsplit("/", 1)[0].encode()
            if (lib.H5Lexists(f, group, H5P_DEFAULT) <= 0
                    or lib.H5Lexists(f, name.encode(), H5P_DEFAULT) <= 0):
                out[name] = None
                continue
            d = lib.H5Dopen2(f, name.encode(), H5P_DEFAULT)
            s = lib.H5Dget_space(d)
            rank = lib.H5Sget_simple_extent_ndims(s)
            dims = (ctypes.c_uint64 * max(rank, 1))()
            lib.H5Sget_simple_extent_dims(s, dims, None)
            a = np.empty(tuple(dims[:rank]), dtype=np.float64)
            if lib.H5Dread(d, native_double, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                           a.ctypes.data_as(ctypes.c_void_p)) < 0:
                sys.exit("to_bin.py: cannot read %s from %s" % (name, path))
            lib.H5Sclose(s)
            lib.H5Dclose(d)
            out[name] = a
    finally:
        lib.H5Fclose(f)
    return out


def read(path, names):
    try:
        import h5py  # noqa: F401
    except ImportError:
        return read_ctypes(path, names), "ctypes"
    return read_h5py(path, names), "h5py"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="mlfma2d HDF5 point file")
    ap.add_argument("output", help="binary input of driver.f90")
    ap.add_argument("--nd", type=int, default=1, help="densities (default 1)")
    ap.add_argument("--dipoles", action="store_true", help="also write dipoles")
    ap.add_argument("--seed", type=int, default=1, help="seed of the drawn values (default 1)")
    a = ap.parse_args()
    if not 1 <= a.nd <= 1024:
        sys.exit("to_bin.py: --nd must be in 1..1024")

    d, how = read(a.input, ["/sources/x", "/sources/y", "/sources/q"])
    x, y, q = d["/sources/x"], d["/sources/y"], d["/sources/q"]
    if x is None or y is None or x.ndim != 1 or x.shape != y.shape or x.size == 0:
        sys.exit("to_bin.py: %s: /sources/x and /sources/y must be two 1-D datasets of one "
                 "length >= 1" % a.input)
    n = x.size
    if q is not None:
        q = q.reshape(1, -1) if q.ndim == 1 else q
        if q.ndim != 2 or q.shape[1] != n:
            sys.exit("to_bin.py: %s: /sources/q has shape %s, expected (%d) or (nd, %d)"
                     % (a.input, q.shape, n, n))

    rng = np.random.default_rng(a.seed)
    charge = np.empty((n, a.nd))  # C order (n, nd) = Fortran charge(nd, n)
    if q is not None and q.shape[0] >= a.nd:
        charge[:, :] = q[:a.nd].T
        what = "q from the file (%d of its %d rows)" % (a.nd, q.shape[0])
    else:
        first = 0
        if q is not None:
            charge[:, 0] = q[0]
            first = 1
        if first < a.nd:
            charge[:, first:] = rng.random((a.nd - first, n)).T
        what = ("density 0 from the file's q, " if q is not None else "") + \
            ("%d drawn from seed %d" % (a.nd - first, a.seed) if first < a.nd else "")
    with open(a.output, "wb") as f:
        f.write(MAGIC)
        f.write(np.array([n, a.nd, 1 if a.dipoles else 0], dtype="<i8").tobytes())
        f.write(np.ascontiguousarray(np.stack([x, y], axis=1), dtype="<f8").tobytes())
        f.write(np.ascontiguousarray(charge, dtype="<f8").tobytes())
        if a.dipoles:
            strength = rng.random((a.nd, n))
            angle = 2 * np.pi * rng.random((a.nd, n))
            f.write(np.ascontiguousarray(strength.T, dtype="<f8").tobytes())  # dipstr(nd, n)
            vec = np.stack([np.cos(angle), np.sin(angle)], axis=0)  # (2, nd, n)
            f.write(np.ascontiguousarray(vec.transpose(2, 0, 1), dtype="<f8").tobytes())
    print("to_bin.py: %s: n %d, nd %d (%s)%s; read with %s" % (
        a.output, n, a.nd, what, ", dipoles from seed %d" % a.seed if a.dipoles else "", how))


if __name__ == "__main__":
    main()
