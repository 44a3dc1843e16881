"""Shared helpers of the Python tests. CTest runs them with the build tree's package on
PYTHONPATH (python/CMakeLists.txt); by hand:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/tests
"""
import pathlib

import numpy as np

import mlfma2d

REPO = pathlib.Path(__file__).resolve().parents[2]


def points(shape, n, seed=1, mixed=False):
    """x, y, q of a generated point set; mixed: charges in [-0.5, 0.5) instead of [0, 1)."""
    p = mlfma2d.generate_points(shape, n, seed)
    return p.x, p.y, (p.q - 0.5 if mixed else p.q)


def rel_l2(value, reference):
    return np.linalg.norm(value - reference) / np.linalg.norm(reference)


def field_rel_l2(ex, ey, rx, ry):
    """Relative L2 error of the 2-vector field, as the C++ tests measure it."""
    return np.sqrt(np.sum((ex - rx) ** 2 + (ey - ry) ** 2) / np.sum(rx ** 2 + ry ** 2))
