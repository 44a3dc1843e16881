"""The module's surface: every field of the library's public structs reaches Python, the keyword
arguments map onto Options, the version and the back ends are the library's."""
import re

import numpy as np
import pytest

import mlfma2d
from mlfma2d import _core
from conftest import REPO, points, struct_fields


def test_the_header_parser_finds_known_fields():
    # Guards the tests below against a parser that finds nothing.
    assert struct_fields("Options")[:3] == ["tree", "ct", "level_offset"]
    assert "total" in struct_fields("Timings") and "D" in struct_fields("TreeStats")


@pytest.fixture(scope="module")
def solver():
    x, y, q = points("uniform", 500)
    s = mlfma2d.Solver(x, y)
    s.evaluate(q)
    return s


def test_stats_has_every_field_of_TreeStats(solver):
    assert list(solver.stats) == struct_fields("TreeStats")


def test_timings_has_every_field_of_Timings(solver):
    assert list(solver.timings) == struct_fields("Timings")


def test_options_has_every_field_of_Options(solver):
    assert list(solver.options) == struct_fields("Options")
    assert list(_core.default_options()) == struct_fields("Options")


def rows(struct):
    """The names of a struct's rows in the library's table (mlfma2d/fields.hpp)."""
    return [name for name, _, _ in _core.FIELDS[struct]]


def test_every_row_of_the_solvers_tables_reaches_python(solver):
    # The dicts come from the tables: a row and its Python key are one (the C++ test
    # tests/test_fields.cpp holds each table to its header).
    assert list(solver.stats) == rows("TreeStats")
    assert list(solver.timings) == rows("Timings")
    assert list(solver.options) == list(_core.default_options()) == rows("Options")
    assert list(solver.auto_choice) == rows("AutoChoice")
    assert list(solver.auto_choice["candidates"][0]) == rows("CapacityCandidate")
    assert list(mlfma2d.backends()["cpu"]) == rows("BackendInfo")
    assert list(mlfma2d.error_norms([1.0, 2.0], [1.0, 2.5])) == rows("ErrorNorms")
    for name, unit, text in _core.FIELDS["Timings"]:
        assert unit == "s" and text, name


def test_defaults_are_the_librarys():
    x, y, _ = points("uniform", 100)
    assert mlfma2d.Solver(x, y).options == _core.default_options()
    assert _core.default_options()["eps"] == 1e-6


def test_keywords_map_onto_options_and_reach_the_tree():
    x, y, _ = points("uniform", 3000)
    s = mlfma2d.Solver(x, y, eps=1e-8, backend="cpu", ct=7, levels=1, field=True, threads=1,
                       terms=12, gpu_memory=1 << 20, chunk_targets=64, tree="uniform",
                       hessian=True, densities=2, charges=False, dipoles=True)
    assert s.options == {"tree": "uniform", "ct": 7, "level_offset": 1, "eps": 1e-8, "terms": 12,
                         "backend": "cpu", "threads": 1, "place_threads": True, "field": True,
                         "hessian": True, "densities": 2, "charges": False, "dipoles": True,
                         "gpu_memory": 1 << 20, "chunk_targets": 64, "calibration_cache": "",
                         "recalibrate": False}
    assert s.stats["tree"] == "uniform"
    assert s.stats["ct"] == 7 and s.stats["terms"] == 12
    assert s.stats["levels"] == s.stats["levels_ct"] + 1
    assert s.field and s.hessian and s.densities == 2 and s.dipoles and not s.charges


def test_levels_alone_is_the_papers_ct_and_ct_none_is_chosen():
    x, y, _ = points("uniform", 3000)
    papers = mlfma2d.Solver(x, y, levels=-1, backend="cpu")
    assert papers.stats["ct"] == mlfma2d._core.PAPERS_CT == 15
    assert not papers.auto_choice["ct_chosen"] and not papers.auto_choice["backend_chosen"]
    chosen = mlfma2d.Solver(x, y)
    a = chosen.auto_choice
    assert a["ct_chosen"] and a["backend_chosen"] and a["ct"] == chosen.stats["ct"]
    assert list(a) == struct_fields("AutoChoice")
    assert len(a["candidates"]) >= 3
    assert list(a["candidates"][0]) == struct_fields("CapacityCandidate")
    assert min(c["total"] for c in a["candidates"]) == a["predicted_seconds"]


def test_tree_accepts_the_kinds_the_library_builds():
    x, y, _ = points("graded-polygon", 2000)
    assert mlfma2d.Solver(x, y).stats["tree"] == "adaptive"
    for kind in ("uniform", "adaptive"):
        assert mlfma2d.Solver(x, y, tree=kind).stats["tree"] == kind
    with pytest.raises(ValueError, match="^unknown tree 'quad'; valid: adaptive, uniform$"):
        mlfma2d.Solver(x, y, tree="quad")


def test_version_is_the_projects():
    cmake = (REPO / "CMakeLists.txt").read_text()
    version = re.search(r"project\(mlfma2d VERSION (\S+)", cmake).group(1)
    assert mlfma2d.__version__ == version


def test_backends_lists_every_back_end_with_every_field_of_BackendInfo():
    b = mlfma2d.backends()
    assert list(b) == ["cpu", "indexing", "repetition", "shared", "repetition-gpu"]
    for name, info in b.items():
        assert list(info) == struct_fields("BackendInfo")
        assert info["name"] == name and info["summary"]
        assert info["runs_on_device"] == (name != "cpu")
        assert info["available"] == (info["why"] == ""), name
    assert b["cpu"]["available"]


def test_the_device_can_be_started_ahead_of_a_solver():
    # Nothing starts for a CPU back end or without a device; any number of times; a Solver made
    # afterwards finds it up (its setup waited for the device at most while it was starting).
    mlfma2d.start_device("cpu")
    mlfma2d.start_device()
    mlfma2d.start_device("shared")
    mlfma2d.wait_for_device()
    x = np.linspace(0, 1, 500)
    s = mlfma2d.Solver(x, x ** 2)
    s.evaluate(np.ones(500))
    assert 0 <= s.timings["device_wait"] <= s.timings["setup"]


def test_terms_for_eps_and_error_norms():
    assert mlfma2d.terms_for_eps(1e-6) == 18  # 3.0 * log10(1 / eps), docs/accuracy.md
    assert mlfma2d.terms_for_eps(1e-30) == mlfma2d.MAX_TERMS
    e = mlfma2d.error_norms([1.0, 2.0, 2.0], [1.0, 2.0, 4.0])
    assert e == {"rel_l2": pytest.approx(2 / np.sqrt(21)), "max_abs": 2.0}


def test_repr_names_the_geometry(solver):
    assert repr(solver).startswith("mlfma2d.Solver(n_sources=500, n_targets=500, eps=1e-06")


def test_warnings_are_passed_on():
    # Every point identical: the library warns that every pair is skipped.
    s = mlfma2d.Solver(np.ones(20), np.ones(20))
    assert any("are identical" in w for w in s.warnings)
    np.testing.assert_array_equal(s.evaluate(np.ones(20)), 0)
