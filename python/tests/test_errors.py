"""Every failure is a Python exception with the library's message: mlfma2d.InvalidInput (a
ValueError) for bad input, RuntimeError subclasses (mlfma2d.Error and below) for the rest, TypeError
for arguments that are not arrays of real numbers."""
import re

import numpy as np
import pytest

import mlfma2d
from mlfma2d import _core
from conftest import points


# --- The hierarchy, and the translation of every C++ exception type.

@pytest.mark.parametrize("name, bases", [
    ("Error", (RuntimeError,)),
    ("InvalidInput", (mlfma2d.Error, ValueError)),
    ("IoError", (mlfma2d.Error,)),
    ("BackendUnavailable", (mlfma2d.Error,)),
    ("RuntimeFailure", (mlfma2d.Error,)),
    ("CudaError", (mlfma2d.RuntimeFailure,)),
])
def test_each_library_exception_becomes_its_python_class_with_its_message(name, bases):
    cls = getattr(mlfma2d, name)
    assert cls.__bases__ == bases
    assert cls.__module__ == "mlfma2d" and cls.__name__ == name
    message = f"a {name} message: file 'x.h5', row 3"
    with pytest.raises(cls) as info:
        _core._throw(name, message)
    assert type(info.value) is cls  # the most derived class, not a base
    assert str(info.value) == message


def test_every_mlfma2d_error_is_an_error_and_invalid_input_is_a_value_error():
    for name in ["InvalidInput", "IoError", "BackendUnavailable", "RuntimeFailure", "CudaError"]:
        assert issubclass(getattr(mlfma2d, name), mlfma2d.Error)
        assert issubclass(getattr(mlfma2d, name), RuntimeError)
    assert issubclass(mlfma2d.InvalidInput, ValueError)


# --- Bad input: ValueError (mlfma2d.InvalidInput) with the library's message.

def raises_invalid(message):
    """pytest.raises for InvalidInput whose message is exactly `message`."""
    return pytest.raises(mlfma2d.InvalidInput, match="^" + re.escape(message) + "$")


@pytest.fixture(scope="module")
def solver():
    x, y, _ = points("uniform", 100)
    return mlfma2d.Solver(x, y)


def test_charges_of_the_wrong_length(solver):
    with raises_invalid("expected 100 charges, got 99"):
        solver.evaluate(np.zeros(99))
    with raises_invalid("expected 100 charges per row, got 101"):
        solver.evaluate(np.zeros((2, 101)))


def test_charges_of_the_wrong_rank(solver):
    with raises_invalid("q must be a 1-D or 2-D array, got 3-D"):
        solver.evaluate(np.zeros((1, 1, 100)))
    with raises_invalid("q must be a 1-D or 2-D array, got 0-D"):
        solver.evaluate(1.0)


def test_charges_not_finite(solver):
    q = np.zeros(100)
    q[42] = np.nan
    with raises_invalid("charge 42 is not finite"):
        solver.evaluate(q)
    with raises_invalid("charge 42 is not finite"):
        solver.evaluate(np.stack([np.zeros(100), q]))


def test_bad_coordinates():
    with raises_invalid("source x and y have different lengths (3 and 2)"):
        mlfma2d.Solver([0, 1, 2], [0, 1])
    with raises_invalid("no sources: at least one source point is needed"):
        mlfma2d.Solver([], [])
    with raises_invalid("x must be a 1-D array, got 2-D"):
        mlfma2d.Solver(np.zeros((2, 2)), np.zeros(4))
    with raises_invalid("source 1 has a non-finite coordinate (inf, 1)"):
        mlfma2d.Solver([0.0, np.inf], [0.0, 1.0])


def test_bad_targets():
    x, y = [0.0, 1.0], [0.0, 1.0]
    with raises_invalid("targets must be a pair (x, y) of 1-D arrays or None"):
        mlfma2d.Solver(x, y, ([0.0], [1.0], [2.0]))
    with raises_invalid("targets must be a pair (x, y) of 1-D arrays or None"):
        mlfma2d.Solver(x, y, 5)
    with raises_invalid("no targets: at least one target point is needed"):
        mlfma2d.Solver(x, y, ([], []))
    with raises_invalid("target x and y have different lengths (2 and 1)"):
        mlfma2d.Solver(x, y, ([0.5, 0.2], [0.5]))


def test_bad_options():
    x, y = [0.0, 1.0], [0.0, 1.0]
    with raises_invalid("eps must be in (0, 1), got 2"):
        mlfma2d.Solver(x, y, eps=2)
    with raises_invalid("CT must be >= 1 (0 = chosen automatically), got -1"):
        mlfma2d.Solver(x, y, ct=-1)
    with raises_invalid("threads must be >= 1 (0 = default), got -2"):
        mlfma2d.Solver(x, y, threads=-2)
    with pytest.raises(mlfma2d.InvalidInput,
                       match=r"^level offset -5 \(--levels\) puts the last level at L = -2"):
        mlfma2d.Solver(x, y, levels=-5, tree="uniform")
    with raises_invalid("option ct must be an integer, got 1.5"):
        mlfma2d.Solver(x, y, ct=1.5)
    with raises_invalid("option gpu_memory must be an integer >= 0, got -1"):
        mlfma2d.Solver(x, y, gpu_memory=-1)
    with raises_invalid("option backend must be a string, got 3"):
        mlfma2d.Solver(x, y, backend=3)
    with raises_invalid("unknown option 'colour'"):
        _core.Solver(x, y, None, {"colour": 1})


def test_bad_direct_sum_arguments():
    with raises_invalid("direct_sum: source x, y and q must have equal lengths"):
        mlfma2d.direct_sum([0, 1], [0, 1], [1])
    with raises_invalid("direct_sum: target x and y differ in length"):
        mlfma2d.direct_sum([0], [0], [1], ([0, 1], [0]))
    with raises_invalid("direct_sum: target index 2 out of range"):
        mlfma2d.direct_sum([0, 1], [0, 1], [1, 1], which=[0, 2])
    with raises_invalid("which: index -1 is negative"):
        mlfma2d.direct_sum([0, 1], [0, 1], [1, 1], which=[-1])
    with pytest.raises(TypeError, match="^which must be an array of integer indices$"):
        mlfma2d.direct_sum([0, 1], [0, 1], [1, 1], which=[0.5])


def test_direct_sum_refuses_non_finite_input_as_the_solver_does():
    # The reference once returned NaN here while Solver refused the same points.
    nan, inf = float("nan"), float("inf")
    for x, y, q, targets, message in [
            ([0, nan], [0, 1], [1, 1], None, "source 1 has a non-finite coordinate (nan, 1)"),
            ([0, 1], [-inf, 1], [1, 1], None, "source 0 has a non-finite coordinate (0, -inf)"),
            ([0, 1], [0, 1], [1, inf], None, "charge 1 is not finite"),
            ([0, 1], [0, 1], [1, 1], ([0.5, inf], [0.5, 0]),
             "target 1 has a non-finite coordinate (inf, 0)")]:
        with raises_invalid(message):
            mlfma2d.direct_sum(x, y, q, targets)
        if targets is None and np.isfinite(x).all() and np.isfinite(y).all():
            with raises_invalid(message):
                mlfma2d.Solver(x, y).evaluate(q)
        elif targets is None:
            with raises_invalid(message):
                mlfma2d.Solver(x, y)


def test_error_norms_never_hide_a_nan():
    for value, reference in [([np.nan, 1.0], [1.0, 1.0]), ([1.0, 1.0], [1.0, np.nan]),
                             ([1.0, np.nan], [1.0, 1.0])]:
        e = mlfma2d.error_norms(value, reference)
        assert np.isnan(e["max_abs"]) and np.isnan(e["rel_l2"]), (value, reference, e)
    e = mlfma2d.error_norms([np.inf, 1.0], [1.0, 1.0])
    assert e["max_abs"] == np.inf and e["rel_l2"] == np.inf


def test_bad_generator_and_format_arguments():
    with pytest.raises(mlfma2d.InvalidInput,
                       match="^unknown point-set shape 'blob': valid shapes are uniform, "):
        mlfma2d.generate_points("blob", 10)
    with raises_invalid("generate_points: n must be at least 1, got 0"):
        mlfma2d.generate_points("disk", 0)
    with raises_invalid("generate_points: n must be at least 1, got -3"):
        mlfma2d.generate_points("disk", -3)
    with raises_invalid("generate_points: seed must be >= 0, got -1"):
        mlfma2d.generate_points("disk", 3, seed=-1)
    with raises_invalid("cannot tell the format of 'points.txt': use .h5, .hdf5 or .csv"):
        mlfma2d.format_of("points.txt")
    with raises_invalid("eps must be in (0, 1), got 0"):
        mlfma2d.terms_for_eps(0)


def test_generator_arguments_of_the_wrong_type_are_invalid_input_naming_them():
    # Not pybind11's TypeError "incompatible function arguments".
    with raises_invalid("generate_points: n must be an integer, got 1.5"):
        mlfma2d.generate_points("disk", 1.5)
    with raises_invalid("generate_points: n must be an integer, got '10'"):
        mlfma2d.generate_points("disk", "10")
    with raises_invalid("generate_points: seed must be an integer, got None"):
        mlfma2d.generate_points("disk", 10, seed=None)
    with raises_invalid("generate_points: shape must be a string, got 3"):
        mlfma2d.generate_points(3, 10)
    assert len(mlfma2d.generate_points("disk", np.int64(10), seed=np.uint8(2)).x) == 10


def test_bad_write_arguments(tmp_path):
    path = str(tmp_path / "p.csv")
    with raises_invalid(
            f"cannot write '{path}': CSV holds only x,y,q; write separate targets to .h5"):
        mlfma2d.write_points(path, [0], [0], [1], ([0.5], [0.5]))
    with raises_invalid(f"cannot write '{path}': x and q differ in length (1 vs 2)"):
        mlfma2d.write_points(path, [0], [0], [1, 2])
    with raises_invalid("attribute 'when' must be a number or a string, got list"):
        mlfma2d.write_result(str(tmp_path / "r.h5"), [1.0], attributes={"when": [1]})
    assert not list(tmp_path.iterdir())  # nothing written


# --- Not arrays of real numbers: TypeError.

@pytest.mark.parametrize("value, what", [
    (np.zeros(100, dtype=complex), "dtype complex128"),
    (np.array(["a"] * 100), "dtype <U1"),
    (None, "None"),
])
def test_charges_that_are_not_real_numbers(solver, value, what):
    with pytest.raises(TypeError, match="^q must be an array of real numbers, got " + what + "$"):
        solver.evaluate(value)


def test_coordinates_that_are_not_real_numbers():
    with pytest.raises(TypeError,
                       match="^x must be an array of real numbers, got dtype complex128$"):
        mlfma2d.Solver(np.zeros(3, dtype=complex), np.zeros(3))
    with pytest.raises(TypeError,
                       match=r"^targets\[1\] must be an array of real numbers, got None$"):
        mlfma2d.Solver([0.0], [0.0], ([0.0], None))


# --- Files: IoError with the file's name and what is wrong.

def test_missing_file_is_an_io_error(tmp_path):
    path = str(tmp_path / "none.h5")
    with pytest.raises(mlfma2d.IoError, match="^" + re.escape(path) + ": no such file$"):
        mlfma2d.read_points(path)


def test_malformed_csv_is_an_io_error_naming_row_and_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("x,y,q\n0,0,1\n1,oops,1\n")
    with pytest.raises(mlfma2d.IoError) as info:
        mlfma2d.read_points(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": ") and "column y" in message and "oops" in message


def test_unwritable_path_is_an_io_error(tmp_path):
    path = str(tmp_path / "no-such-folder" / "p.h5")
    message = f"cannot write '{path}': No such file or directory"
    with pytest.raises(mlfma2d.IoError, match="^" + re.escape(message) + "$"):
        mlfma2d.write_points(path, [0], [0], [1])


# --- Back ends.

def test_unknown_back_end_is_backend_unavailable():
    with pytest.raises(mlfma2d.BackendUnavailable,
                       match="^unknown back end 'nope'; valid: "
                             "cpu, indexing, repetition, shared, repetition-gpu$"):
        mlfma2d.Solver([0.0, 1.0], [0.0, 1.0], backend="nope")


def test_a_back_end_that_cannot_run_here_says_why():
    missing = {n: b["why"] for n, b in mlfma2d.backends().items() if not b["available"]}
    if not missing:
        pytest.skip("every back end can run on this machine")
    name, why = next(iter(missing.items()))
    with pytest.raises(mlfma2d.BackendUnavailable) as info:
        mlfma2d.Solver([0.0, 1.0], [0.0, 1.0], backend=name)
    assert str(info.value) == why
