"""Point-set and result files, and the point-set generators: the library's io.hpp.

The format follows the file name: ".h5"/".hdf5" = HDF5, ".csv" = CSV. Files are written atomically
(a temporary file renamed into place): on any error nothing is written or changed.
"""
import os
from typing import NamedTuple, Optional, Tuple

import numpy as np

from . import _core


class PointSet(NamedTuple):
    """Sources with charges and optional separate targets; `Solver(p.x, p.y, p.targets)` and
    `write_points(path, *p)` take it apart."""
    x: np.ndarray
    y: np.ndarray
    q: np.ndarray
    targets: Optional[Tuple[np.ndarray, np.ndarray]] = None  # (tx, ty), or None = the sources


class ResultData(NamedTuple):
    """A result file read back."""
    potential: np.ndarray
    field: Optional[Tuple[np.ndarray, np.ndarray]]    # (ex, ey), or None when not in the file
    targets: Optional[Tuple[np.ndarray, np.ndarray]]  # (tx, ty) from a CSV file, else None
    attributes: dict                                  # name -> float or str


def format_of(path):
    """"hdf5" or "csv", from the file name; InvalidInput for any other extension."""
    return _core.format_of(os.fspath(path))


def read_points(path):
    """Sources, charges and targets (if the file has them) as a PointSet.

    HDF5: /sources/x, /sources/y, /sources/q, optional /targets/x, /targets/y. CSV: header x,y,q.
    """
    return PointSet(*_core.read_points(os.fspath(path)))


def read_targets(path):
    """Target points only, (tx, ty): HDF5 /targets (or /sources if none), or CSV x,y."""
    return _core.read_targets(os.fspath(path))


def write_points(path, x, y, q, targets=None):
    """Write sources, charges and optional targets (a pair (tx, ty); HDF5 only)."""
    _core.write_points(os.fspath(path), x, y, q, targets)


def write_result(path, potential, field=None, *, targets=None, attributes=None):
    """Write an evaluation's output. field: None or (ex, ey). targets: (tx, ty), needed for CSV
    (its rows are x,y,potential[,field_x,field_y]), ignored by HDF5. attributes: {name: number or
    str} (HDF5 root attributes; CSV "# name = value" lines)."""
    _core.write_result(os.fspath(path), potential, field, targets, attributes or {})


def read_result(path):
    """A result file written by write_result or the mlfma2d program, as ResultData."""
    return ResultData(*_core.read_result(os.fspath(path)))


def generate_points(shape, n, seed=1):
    """n points of a named shape (point_set_shapes()) with charges uniform in [0, 1),
    deterministic for a seed, as a PointSet."""
    return PointSet(*_core.generate_points(shape, n, seed))


def point_set_shapes():
    """The shapes generate_points knows."""
    return _core.point_set_shapes()
