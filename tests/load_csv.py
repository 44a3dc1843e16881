#!/usr/bin/env python3
"""The program's CSV outputs load with numpy.loadtxt(f, delimiter=",", skiprows=1) and, when pandas
is installed, pandas.read_csv(f), both without other options: a result with the field, a point
set, and (pandas only: it has a text column) compare's table. Exit 77 (skipped) without numpy.

    load_csv.py MLFMA2D_PROGRAM DATA_DIR
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)
try:
    import pandas
except ImportError:
    pandas = None

app, data = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as d:
    result = os.path.join(d, "phi.csv")
    subprocess.run([app, "--input", os.path.join(data, "circle_n5000.csv"), "--output", result,
                    "--field", "--quiet"], check=True, stdout=subprocess.DEVNULL)
    values = numpy.loadtxt(result, delimiter=",", skiprows=1)
    assert values.shape == (5000, 5), values.shape
    assert numpy.isfinite(values).all()
    points = os.path.join(d, "points.csv")
    subprocess.run([app, "generate", "--shape", "disk", "--n", "321", "--output", points,
                    "--quiet"], check=True)
    assert numpy.loadtxt(points, delimiter=",", skiprows=1).shape == (321, 3)
    if pandas is not None:
        frame = pandas.read_csv(result)
        assert list(frame.columns) == ["x", "y", "potential", "field_x", "field_y"], frame.columns
        assert len(frame) == 5000
        table = os.path.join(d, "table.csv")
        subprocess.run([app, "compare", "--input", points, "--output", table, "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        assert pandas.read_csv(table)["backend"][0] == "cpu"
print("loaded with numpy" + (" and pandas" if pandas is not None else " (pandas not installed)"))
