"""docs/python.md is true: its SciPy examples run as written and reach the accuracy the page
states, its list of shapes is point_set_shapes(), and what it says of ct is what Solver does."""
import ast
import re

import numpy as np
import pytest

import mlfma2d
from conftest import REPO, rel_l2

PAGE = (REPO / "docs" / "python.md").read_text()


def example(*names):
    """The page's one ```python block that mentions every name in `names`."""
    blocks = [b for b in re.findall(r"```python\n(.*?)```", PAGE, re.S)
              if all(n in b for n in names)]
    assert len(blocks) == 1, f"{len(blocks)} examples mention {names}"
    return blocks[0]


def claimed(pattern):
    """The number the page states where `pattern` (a regular expression ending before it) is."""
    return float(re.search(pattern + r"(\d[\d.e+-]*\d)", PAGE).group(1))


def run(code):
    pytest.importorskip("scipy")
    namespace = {}
    exec(compile(code, "docs/python.md", "exec"), namespace)  # noqa: S102 - the page's own code
    return namespace


def test_the_gmres_example_on_the_solver_reaches_a_dense_solve():
    ns = run(example("mlfma2d.Solver(", "spla.gmres"))
    assert ns["info"] == 0
    p = ns["p"]
    d = np.hypot(p.x[:, None] - p.x[None, :], p.y[:, None] - p.y[None, :])
    with np.errstate(divide="ignore"):
        dense = np.where(d > 0, np.log(d), 0.0) - 20.0 * np.eye(len(p.x))
    reference = np.linalg.solve(dense, np.cos(3 * p.x) + p.y)
    assert rel_l2(ns["sigma"], reference) <= claimed(r"sigma is then the dense solve's to ")


def test_the_gmres_example_on_the_electrostatic_operator_reaches_solve():
    ns = run(example("ElectrostaticSolver(", "spla.gmres"))
    assert ns["info"] == 0
    reference = ns["solver"].solve().sigma
    assert rel_l2(ns["sigma"], reference) <= claimed(r"reaches\s+`solve\(\)`'s sigma to ")


def test_the_page_lists_every_point_set_shape():
    row = re.search(r"^\| `point_set_shapes\(\)` \| `(\[.*?\])` \|", PAGE, re.M)
    assert ast.literal_eval(row.group(1)) == mlfma2d.point_set_shapes()


def test_what_the_page_says_of_ct_is_what_the_solver_does():
    x, y = mlfma2d.generate_points("uniform", 2000, seed=3)[:2]
    # ct=0 is the library's "automatic", as the table says: the same choice as ct=None.
    assert "`None` (or 0" in re.search(r"^\| `ct` \|.*$", PAGE, re.M).group(0)
    automatic = mlfma2d.Solver(x, y, backend="cpu", ct=0)
    assert automatic.options["ct"] == 0
    assert automatic.stats["ct"] == mlfma2d.Solver(x, y, backend="cpu").stats["ct"]
    # Every CT message the page quotes is the one Solver raises for the value it names.
    messages = re.findall(r"`(CT must be [^`]*, got (-?\d+))`", PAGE)
    assert messages
    for message, value in messages:
        with pytest.raises(mlfma2d.InvalidInput, match="^" + re.escape(message) + "$"):
            mlfma2d.Solver(x, y, ct=int(value))


# --- The examples of several densities, dipoles, the Hessian and matmat.

def field_error(ax, ay, bx, by):
    """Relative L2 error of a 2-vector field (ax, ay) against (bx, by)."""
    return np.sqrt(np.sum((ax - bx) ** 2 + (ay - by) ** 2) / np.sum(bx ** 2 + by ** 2))


def test_the_densities_example_is_within_eps_of_direct_sums():
    ns = run(example("densities=4", "direct_sum"))
    bound = claimed(r"Every row of `phi` and of the field is within ")
    s = ns["sample"]
    assert ns["phi"].shape == ns["ex"].shape == (4, 20000) and ns["ref"].shape == (4, len(s))
    for k in range(4):
        assert rel_l2(ns["phi"][k, s], ns["ref"][k]) <= bound
        assert field_error(ns["ex"][k, s], ns["ey"][k, s], ns["rx"][k], ns["ry"][k]) <= bound


def test_the_dipole_example_is_the_double_layer():
    ns = run(example("dipole_vectors=normals"))
    exact = np.array([-2 * np.pi, -2 * np.pi, 0.0])
    assert np.max(np.abs(ns["phi"] - exact)) <= claimed(r"\(inside, inside, outside\) to ")


def test_the_hessian_example_is_within_eps_of_direct_sums():
    ns = run(example("hessian=True, eps=1e-8"))
    r, ref, s = ns["r"], ns["ref"], ns["sample"]
    assert isinstance(r, mlfma2d.Result) and r.field_x is None
    bound = claimed(r"one vector field\) is the direct sum's to\s+")
    assert field_error(r.hessian_xx[s], r.hessian_xy[s], ref.hessian_xx, ref.hessian_xy) <= bound
    np.testing.assert_array_equal(r.hessian_yy, -r.hessian_xx)


def test_the_matmat_example_is_the_matvecs():
    ns = run(example("K @ Q"))
    bound = claimed(r"`Phi` is `columns` to ")
    for j in range(8):
        assert rel_l2(ns["Phi"][:, j], ns["columns"][:, j]) <= bound
