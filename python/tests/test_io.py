"""Point-set and result files from Python: what is written is read back, in both formats, and
files the mlfma2d program reads and writes are the same files."""
import numpy as np
import pytest

import mlfma2d
from conftest import REPO


def test_generate_points_is_deterministic_and_knows_its_shapes():
    shapes = mlfma2d.point_set_shapes()
    assert shapes == ["uniform", "disk", "lshape", "circle", "ellipse", "strips", "clusters",
                      "graded-strip", "graded-polygon", "multiscale-clusters"]
    for shape in shapes:
        p = mlfma2d.generate_points(shape, 100, seed=4)
        assert isinstance(p, mlfma2d.PointSet) and p.targets is None
        assert all(a.shape == (100,) and a.dtype == np.float64 for a in (p.x, p.y, p.q))
        assert np.all((p.q >= 0) & (p.q < 1))
        again = mlfma2d.generate_points(shape, 100, seed=4)
        np.testing.assert_array_equal(p.x, again.x)
        np.testing.assert_array_equal(p.q, again.q)
    other = mlfma2d.generate_points("disk", 100, seed=5)
    assert not np.array_equal(other.x, mlfma2d.generate_points("disk", 100, seed=4).x)


@pytest.mark.parametrize("name", ["p.h5", "p.hdf5", "p.csv"])
def test_points_round_trip(tmp_path, name):
    p = mlfma2d.generate_points("clusters", 300, 2)
    path = tmp_path / name
    mlfma2d.write_points(path, *p)
    back = mlfma2d.read_points(path)
    for a, b in zip(back[:3], p[:3]):
        np.testing.assert_array_equal(a, b)  # CSV is written with 17 digits: exact
    assert back.targets is None
    assert mlfma2d.format_of(path) == ("csv" if name.endswith(".csv") else "hdf5")


def test_points_with_targets_round_trip_through_hdf5(tmp_path):
    p = mlfma2d.generate_points("disk", 200, 1)
    t = mlfma2d.generate_points("uniform", 50, 2)
    path = tmp_path / "pt.h5"
    mlfma2d.write_points(path, p.x, p.y, p.q, (t.x, t.y))
    back = mlfma2d.read_points(path)
    np.testing.assert_array_equal(back.targets[0], t.x)
    np.testing.assert_array_equal(back.targets[1], t.y)
    tx, ty = mlfma2d.read_targets(path)
    np.testing.assert_array_equal(tx, t.x)
    np.testing.assert_array_equal(ty, t.y)


def test_a_point_set_file_feeds_a_solver(tmp_path):
    p = mlfma2d.read_points(REPO / "data" / "circle_n5000.csv")
    solver = mlfma2d.Solver(p.x, p.y, p.targets, eps=1e-8)
    phi = solver.evaluate(p.q)
    ref = mlfma2d.direct_sum(p.x, p.y, p.q, which=np.arange(0, 5000, 50))
    assert np.linalg.norm(phi[::50] - ref) <= 1e-8 * np.linalg.norm(ref)


@pytest.mark.parametrize("name", ["r.h5", "r.csv"])
@pytest.mark.parametrize("field", [False, True])
def test_results_round_trip(tmp_path, name, field):
    p = mlfma2d.generate_points("uniform", 100, 3)
    solver = mlfma2d.Solver(p.x, p.y, field=field)
    out = solver.evaluate(p.q)
    phi, fld = (out[0], out[1:]) if field else (out, None)
    attributes = {"eps": 1e-6, "backend": "cpu", "levels": solver.stats["levels"]}
    path = tmp_path / name
    mlfma2d.write_result(path, phi, fld, targets=(p.x, p.y), attributes=attributes)
    back = mlfma2d.read_result(path)
    assert isinstance(back, mlfma2d.ResultData)
    np.testing.assert_array_equal(back.potential, phi)
    if field:
        np.testing.assert_array_equal(back.field[0], fld[0])
        np.testing.assert_array_equal(back.field[1], fld[1])
    else:
        assert back.field is None
    np.testing.assert_array_equal(back.targets[0], p.x)  # result files hold their targets
    np.testing.assert_array_equal(back.targets[1], p.y)
    levels = float(solver.stats["levels"])  # numbers come back as floats
    assert back.attributes == {"eps": 1e-6, "backend": "cpu", "levels": levels}
