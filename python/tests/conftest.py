"""Shared helpers of the Python tests. CTest runs them with the build tree's package on
PYTHONPATH (python/CMakeLists.txt); by hand:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/tests
"""
import os
import pathlib
import re
import threading
import time

import numpy as np

import mlfma2d

REPO = pathlib.Path(__file__).resolve().parents[2]

# Set by pip_install.py, which runs these tests against the package pip installed: a run that
# imported another mlfma2d (the build tree's, the source's) would test the wrong thing.
if os.environ.get("MLFMA2D_EXPECT_PACKAGE"):
    assert pathlib.Path(mlfma2d.__file__).parent == pathlib.Path(
        os.environ["MLFMA2D_EXPECT_PACKAGE"]), f"mlfma2d imported from {mlfma2d.__file__}"


def points(shape, n, seed=1, mixed=False):
    """x, y, q of a generated point set; mixed: charges in [-0.5, 0.5) instead of [0, 1)."""
    p = mlfma2d.generate_points(shape, n, seed)
    return p.x, p.y, (p.q - 0.5 if mixed else p.q)


def rel_l2(value, reference):
    return np.linalg.norm(value - reference) / np.linalg.norm(reference)


def field_rel_l2(ex, ey, rx, ry):
    """Relative L2 error of the 2-vector field, as the C++ tests measure it."""
    return np.sqrt(np.sum((ex - rx) ** 2 + (ey - ry) ** 2) / np.sum(rx ** 2 + ry ** 2))


def struct_fields(struct, header="mlfma2d.hpp"):
    """Field names of `struct` in include/mlfma2d/<header>, in declaration order (member
    functions and their bodies left out)."""
    text = (REPO / "include" / "mlfma2d" / header).read_text()
    body = re.search(r"struct %s \{(.*?)\n\};" % struct, text, re.S).group(1)
    body = re.sub(r"//[^\n]*", "", body)
    body = re.sub(r"\{[^{}]*\}", ";", body)  # inline function bodies
    names = []
    for statement in body.split(";"):
        statement = statement.strip()
        if not statement or "(" in statement:  # member functions
            continue
        declarators = re.sub(r"^[\w:<>]+\s+", "", statement)  # drop the type
        names += [d.split("=")[0].strip() for d in declarators.split(",")]
    return names


def spinner_rate_during(work):
    """Runs work() while a pure-Python thread counts; returns (seconds work took, the counter's
    rate during it / its rate alone). A call that held the GIL would leave the spinner at most
    one switch interval (5 ms) of the call: a small fraction of its rate alone."""
    count = [0]
    stop = threading.Event()

    def spin():  # pure Python: it can only run while it holds the GIL
        while not stop.is_set():
            count[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        c0 = count[0]
        time.sleep(0.2)  # the main thread waits without the GIL: the spinner's rate alone
        alone = (count[0] - c0) / 0.2
        c0, t0 = count[0], time.perf_counter()
        work()
        seconds = time.perf_counter() - t0
        during = (count[0] - c0) / seconds
    finally:
        stop.set()
        spinner.join()
    return seconds, during / alone
