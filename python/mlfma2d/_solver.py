"""Solver, direct summation and the back ends: the library's mlfma2d.hpp."""
import numpy as np

from . import _core

# The library's Options defaults (mlfma2d.hpp), read from it so that the keyword defaults below
# follow the library when it changes them.
_LIBRARY_DEFAULTS = _core.default_options()


def _scipy_linear_operator(caller):
    """scipy.sparse.linalg.LinearOperator, or ImportError saying what `caller` needs."""
    try:
        from scipy.sparse.linalg import LinearOperator
    except ImportError as e:
        raise ImportError(f"{caller} needs SciPy (Debian: apt-get install python3-scipy; pip: "
                          "pip install scipy)") from e
    return LinearOperator


def _fmm_options(*, levels=None, ct=None, **given):
    """The Options dict of keyword arguments. None leaves the library's default: ct=None its
    automatic CT (the cost model's depth), levels=None a level offset of 0, threads=None the OpenMP
    default, terms=None p from eps, gpu_memory=None the free device memory, chunk_targets=None its
    automatic chunking, calibration_cache=None its cache file. An explicit level offset keeps the
    papers' meaning, as the CLI's --levels: CT 15 unless ct is given. The library checks values."""
    if levels is not None and ct is None:
        ct = _core.PAPERS_CT
    given.update(ct=ct, level_offset=levels)
    return {k: v for k, v in given.items() if v is not None}


class Solver:
    """The fast multipole solver for one geometry: tree and interaction plan built once.

    Solver(x, y, targets=None, *, eps=1e-6, backend="auto", ct=None, levels=None, field=False,
           threads=None, tree="adaptive", terms=None, gpu_memory=None, chunk_targets=None,
           recalibrate=False, calibration_cache=None, place_threads=True)

    x, y: source coordinates (1-D, equal lengths). targets: None (the targets are the sources,
    self pairs skipped) or a pair (tx, ty). eps and backend default to the library's Options
    (backend "auto": the GPU back end when a device is found, else cpu). ct=None and levels=None:
    the tree's depth chosen by the library's cost model; levels=I alone: the papers' CT 15 moved
    I levels. Every keyword and its Options field: docs/python.md.
    """

    def __init__(self, x, y, targets=None, *, eps=_LIBRARY_DEFAULTS["eps"],
                 backend=_LIBRARY_DEFAULTS["backend"], ct=None, levels=None, field=False,
                 threads=None, tree=_LIBRARY_DEFAULTS["tree"], terms=None, gpu_memory=None,
                 chunk_targets=None, recalibrate=False, calibration_cache=None,
                 place_threads=_LIBRARY_DEFAULTS["place_threads"]):
        options = _fmm_options(eps=eps, backend=backend, ct=ct, levels=levels, field=field,
                               threads=threads, tree=tree, terms=terms, gpu_memory=gpu_memory,
                               chunk_targets=chunk_targets, recalibrate=recalibrate,
                               calibration_cache=calibration_cache, place_threads=place_threads)
        self._solver = _core.Solver(x, y, targets, options)

    def evaluate(self, q):
        """Potential at the targets for charges q (one per source), in the caller's order.

        q of shape (n,) gives shape (m,); q of shape (k, n), a batch of k charge vectors evaluated
        on the same tree, gives (k, m). With field=True: a tuple (potential, ex, ey) of such
        arrays. float64 C-contiguous q is read in place; other real dtypes are converted.
        """
        return self._solver.evaluate(q)

    @property
    def shape(self):
        """(n_targets, n_sources): the shape of the matrix evaluate() applies."""
        return (self._solver.n_targets, self._solver.n_sources)

    @property
    def field(self):
        """Whether evaluate() also returns the field."""
        return self._solver.field

    @property
    def stats(self):
        """Every field of the library's TreeStats, as a dict (fixed when the Solver is built)."""
        return self._solver.stats

    @property
    def timings(self):
        """Every field of the library's Timings (seconds), as a dict: the last evaluation (a
        batch's last row); tree, plan and setup from construction on."""
        return self._solver.timings

    @property
    def options(self):
        """Every field of the library's Options this Solver uses, as a dict."""
        return self._solver.options

    @property
    def auto_choice(self):
        """What the Solver chose by itself and why, as a dict (the library's AutoChoice): the back
        end ("auto"), CT or the uniform tree's level offset (ct=None), the predicted seconds per
        evaluation, and every candidate the cost model considered."""
        return self._solver.auto_choice

    @property
    def warnings(self):
        """Notes about the geometry (e.g. CT could not be met), a list of strings."""
        return self._solver.warnings

    def as_linear_operator(self):
        """The potential map q -> phi as a scipy.sparse.linalg.LinearOperator of shape
        (n_targets, n_sources), float64, for SciPy's iterative solvers (gmres, ...).

        matvec and matmat call evaluate() (matmat as one batch). rmatvec is defined for
        self-evaluation, where the matrix log|x_i - x_j| (zero diagonal) is symmetric. With
        field=True the field is computed and dropped: build the Solver without it for solving.
        Raises ImportError, saying so, when SciPy is missing.
        """
        LinearOperator = _scipy_linear_operator("Solver.as_linear_operator")

        def matvec(q):
            return self._potential(np.ravel(q))  # SciPy may pass shape (n, 1)

        def matmat(q):
            return self._potential(np.asarray(q).T).T  # columns of q are the charge vectors

        symmetric = self.stats["self"]
        return LinearOperator(self.shape, matvec=matvec, matmat=matmat,
                              rmatvec=matvec if symmetric else None, dtype=np.float64)

    def _potential(self, q):
        r = self._solver.evaluate(q)
        return r[0] if self.field else r

    def __repr__(self):
        m, n = self.shape
        o = self.options
        return (f"mlfma2d.Solver(n_sources={n}, n_targets={m}, eps={o['eps']:g}, "
                f"backend={self.auto_choice['backend']!r}, ct={self.stats['ct']}, "
                f"levels={self.stats['levels']}, field={o['field']})")


def direct_sum(x, y, q, targets=None, *, field=False, which=None, threads=None):
    """Direct O(N M) summation, the reference for accuracy (same convention as Solver).

    targets: None (the sources, self pairs skipped) or a pair (tx, ty). which: None (every target)
    or indices of the targets to evaluate. Returns the potential, or (potential, ex, ey) with
    field=True, one entry per evaluated target. Raises InvalidInput, as Solver does, for a
    coordinate or charge that is NaN or infinite.
    """
    return _core.direct_sum(x, y, q, targets, bool(field), which, 0 if threads is None else threads)


def backends():
    """The near-field back ends this build knows, in the library's order: {name: {"name": str,
    "summary": str, "runs_on_device": bool, "available": bool, "why": str}} (every field of the
    library's BackendInfo); "why" says why a back end cannot run here, empty when it can."""
    return _core.backends()


def start_device(backend="auto"):
    """Starts what a GPU back end needs before its first use in the process (the CUDA driver and
    context) on a thread of its own, and returns at once; a Solver made later finds the device
    up. backend: a name from backends() or "auto"; nothing starts for a CPU back end, without
    CUDA or without a device, or a second time. The module waits for the start when the
    interpreter exits."""
    _core.start_device(str(backend))


def wait_for_device():
    """Blocks (without the GIL) until a start begun by start_device() has finished."""
    _core.wait_for_device()


def terms_for_eps(eps):
    """The number of expansion terms p the library uses for relative error eps (0 < eps < 1)."""
    return _core.terms_for_eps(eps)


def error_norms(value, reference):
    """{"rel_l2": ||value - reference|| / ||reference||, "max_abs": max |value - reference|}
    (rel_l2 the absolute norm when the reference is all zeros); a NaN in either gives NaN in
    both."""
    return _core.error_norms(value, reference)
