"""Solver, direct summation and the back ends: the library's mlfma2d.hpp."""
from typing import NamedTuple, Optional

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


class Result(NamedTuple):
    """What evaluate() and direct_sum() return when the Hessian is asked for (the library's
    Result): each array (m,) for 1-D strengths, (nd, m) for 2-D ones; field_x and field_y None
    without field=True. hessian_yy = -hessian_xx (phi is harmonic away from the sources)."""
    potential: np.ndarray
    field_x: Optional[np.ndarray]
    field_y: Optional[np.ndarray]
    hessian_xx: np.ndarray
    hessian_xy: np.ndarray
    hessian_yy: np.ndarray


def _result(r, hessian):
    """The binding's outputs as the package returns them: a Result with the Hessian."""
    return Result(*r) if hessian else r


# The most columns one matmat evaluates in one pass (the library's kMaxDensities).
_MAX_DENSITIES = 1024


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


def _solver_options(*, eps=_LIBRARY_DEFAULTS["eps"], backend=_LIBRARY_DEFAULTS["backend"],
                    ct=None, levels=None, field=False, hessian=False,
                    densities=_LIBRARY_DEFAULTS["densities"], charges=_LIBRARY_DEFAULTS["charges"],
                    dipoles=_LIBRARY_DEFAULTS["dipoles"], threads=None,
                    tree=_LIBRARY_DEFAULTS["tree"], terms=None, gpu_memory=None,
                    chunk_targets=None, recalibrate=False, calibration_cache=None,
                    place_threads=_LIBRARY_DEFAULTS["place_threads"]):
    """The Options dict of Solver's keywords (and DistributedSolver's, the same), with Solver's
    defaults; an unknown keyword is a TypeError."""
    return _fmm_options(eps=eps, backend=backend, ct=ct, levels=levels, field=field,
                        hessian=hessian, densities=densities, charges=charges, dipoles=dipoles,
                        threads=threads, tree=tree, terms=terms, gpu_memory=gpu_memory,
                        chunk_targets=chunk_targets, recalibrate=recalibrate,
                        calibration_cache=calibration_cache, place_threads=place_threads)


class _Evaluator:
    """What Solver and DistributedSolver share: evaluate() and the figures of the library's
    object (self._solver), its options as fixed at construction in self._fixed."""

    def evaluate(self, q=None, *, dipole_strengths=None, dipole_vectors=None):
        """Potential (and field, Hessian as the Solver was built) at the targets, in the caller's
        order, for the sources' charges q and/or dipoles (strengths d, orientations v).

        q and dipole_strengths: shape (n,) for densities=1, giving outputs of shape (m,); shape
        (nd, n), nd = densities, giving (nd, m), one pass over the tree. With densities=1 a (k, n)
        array is a batch of k vectors evaluated one after the other, giving (k, m). Pass those the
        Solver takes (charges=True: q; dipoles=True: dipole_strengths and dipole_vectors), both
        of the same shape. dipole_vectors: shape (2, n), v_j = (v[0, j], v[1, j]) for every
        density, or (nd, 2, n) (k for a batch), one set per density; the moment is d_j v_j.

        Returns the potential; with field=True a tuple (potential, ex, ey); with hessian=True a
        Result(potential, field_x, field_y, hessian_xx, hessian_xy, hessian_yy). float64
        C-contiguous arrays are read in place; other real dtypes are converted.
        """
        r = self._solver.evaluate(q, dipole_strengths, dipole_vectors)
        return _result(r, self._fixed["hessian"])

    @property
    def shape(self):
        """(n_targets, n_sources): the shape of the matrix evaluate() applies (over ranks: this
        rank's targets and sources)."""
        return (self._solver.n_targets, self._solver.n_sources)

    @property
    def field(self):
        """Whether evaluate() also returns the field."""
        return self._fixed["field"]

    @property
    def hessian(self):
        """Whether evaluate() also returns the Hessian (then as a Result)."""
        return self._fixed["hessian"]

    @property
    def densities(self):
        """nd: the density vectors one evaluate() takes (rows of q and dipole_strengths)."""
        return self._fixed["densities"]

    @property
    def charges(self):
        """Whether the sources carry charges (evaluate() takes q)."""
        return self._fixed["charges"]

    @property
    def dipoles(self):
        """Whether the sources carry dipoles (evaluate() takes dipole_strengths and
        dipole_vectors)."""
        return self._fixed["dipoles"]

    @property
    def stats(self):
        """Every field of the library's TreeStats, as a dict (fixed when the Solver is built; over
        ranks: the global tree's, its work figures summed over the ranks)."""
        return self._solver.stats

    @property
    def timings(self):
        """Every field of the library's Timings (seconds), as a dict: the last evaluation (a
        batch's last row; over ranks: this rank's); tree, plan and setup from construction on."""
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


class Solver(_Evaluator):
    """The fast multipole solver for one geometry: tree and interaction plan built once.

    Solver(x, y, targets=None, *, eps=1e-6, backend="auto", ct=None, levels=None, field=False,
           hessian=False, densities=1, charges=True, dipoles=False, threads=None,
           tree="adaptive", terms=None, gpu_memory=None, chunk_targets=None, recalibrate=False,
           calibration_cache=None, place_threads=True)

    x, y: source coordinates (1-D, equal lengths). targets: None (the targets are the sources,
    self pairs skipped) or a pair (tx, ty). eps and backend default to the library's Options
    (backend "auto": the GPU back end when a device is found, else cpu). ct=None and levels=None:
    the tree's depth chosen by the library's cost model; levels=I alone: the papers' CT 15 moved
    I levels. densities: nd, the density vectors one evaluate() takes at once (one pass over the
    tree); charges and dipoles: the kinds of sources; field and hessian: the outputs. Every
    keyword and its Options field: docs/python.md.
    """

    def __init__(self, x, y, targets=None, *, eps=_LIBRARY_DEFAULTS["eps"],
                 backend=_LIBRARY_DEFAULTS["backend"], ct=None, levels=None, field=False,
                 hessian=False, densities=_LIBRARY_DEFAULTS["densities"],
                 charges=_LIBRARY_DEFAULTS["charges"], dipoles=_LIBRARY_DEFAULTS["dipoles"],
                 threads=None, tree=_LIBRARY_DEFAULTS["tree"], terms=None, gpu_memory=None,
                 chunk_targets=None, recalibrate=False, calibration_cache=None,
                 place_threads=_LIBRARY_DEFAULTS["place_threads"]):
        options = _solver_options(eps=eps, backend=backend, ct=ct, levels=levels, field=field,
                                  hessian=hessian, densities=densities, charges=charges,
                                  dipoles=dipoles, threads=threads, tree=tree, terms=terms,
                                  gpu_memory=gpu_memory, chunk_targets=chunk_targets,
                                  recalibrate=recalibrate, calibration_cache=calibration_cache,
                                  place_threads=place_threads)
        self._build(x, y, targets, options)
        # The geometry, copied: as_linear_operator() builds this geometry again for other column
        # counts, and the caller's arrays may have changed by then.
        self._geometry = (np.array(x, dtype=np.float64), np.array(y, dtype=np.float64),
                          None if targets is None else
                          tuple(np.array(t, dtype=np.float64) for t in targets))

    def _build(self, x, y, targets, options):
        self._solver = _core.Solver(x, y, targets, options)
        self._fixed = self._solver.options  # read per call by evaluate() and the operator
        self._variants = {}  # matmat's Solvers on this tree, by their densities

    def _on_this_tree(self, densities):
        """A potential-only Solver of `densities` on this Solver's tree and back end, built once
        and kept (matmat's Solver for that many columns). What this Solver chose is given, so no
        cost model runs (it would calibrate anew for each nd) and each column's answer is what
        this Solver gives, to rounding."""
        if densities not in self._variants:
            a = self.auto_choice
            options = dict(self.options, densities=densities, field=False, hessian=False,
                           ct=a["ct"], level_offset=a["level_offset"], backend=a["backend"],
                           recalibrate=False)
            variant = Solver.__new__(Solver)
            variant._build(*self._geometry, options)
            variant._geometry = self._geometry
            self._variants[densities] = variant
        return self._variants[densities]

    def as_linear_operator(self, dipole_vectors=None):
        """The potential map as a scipy.sparse.linalg.LinearOperator of shape
        (n_targets, n_sources), float64, for SciPy's iterative and block solvers: charges q ->
        phi, or, for a Solver built with dipoles=True and charges=False, dipole strengths d ->
        phi for the orientations dipole_vectors (shape (2, n_sources), copied).

        matvec evaluates one vector (densities=1: this Solver, as evaluate(); otherwise a Solver
        of densities=1 on this tree). matmat evaluates k columns in one pass over the tree: on
        this Solver when k = densities, else on a Solver of densities=k, potential only, with
        this Solver's tree, CT and back end (no cost model run), built on the first block of k
        columns and kept with this Solver (more than 1024 columns: blocks of at most 1024).
        rmatvec is defined for charges in self-evaluation, where the matrix log|x_i - x_j| (zero
        diagonal) is symmetric. With field or hessian the extra outputs of matvec are computed
        and dropped: build the Solver without them for solving. Raises ImportError, saying so,
        when SciPy is missing; InvalidInput for a Solver of both kinds and for dipole_vectors
        that do not fit.
        """
        LinearOperator = _scipy_linear_operator("Solver.as_linear_operator")
        vectors = self._operator_vectors(dipole_vectors)
        kind = "dipole_strengths" if vectors is not None else "q"

        def apply(block):  # block: (k, n), one density per row -> (k, m)
            k = block.shape[0]
            solver = self if k == self.densities else self._on_this_tree(densities=k)
            sources = {kind: block}
            if vectors is not None:
                sources["dipole_vectors"] = vectors
            r = solver.evaluate(**sources)
            return r[0] if isinstance(r, tuple) else r  # the potential

        def matvec(q):
            return apply(np.ravel(q)[None, :])[0]  # SciPy may pass shape (n, 1)

        def matmat(columns):
            # Rows of the transpose are the density vectors; blocks of at most 1024, of equal
            # size, so that a wide matrix needs at most two Solvers.
            rows = np.ascontiguousarray(np.asarray(columns, dtype=np.float64).T)
            k = rows.shape[0]
            blocks = max(1, -(-k // _MAX_DENSITIES))  # ceilings
            size = max(1, -(-k // blocks))
            parts = [apply(rows[i:i + size]) for i in range(0, k, size)]
            return (np.concatenate(parts) if parts else np.empty((0, self.shape[0]))).T

        symmetric = self.stats["self"] and vectors is None
        return LinearOperator(self.shape, matvec=matvec, matmat=matmat,
                              rmatvec=matvec if symmetric else None, dtype=np.float64)

    def _operator_vectors(self, dipole_vectors):
        """The operator's dipole orientations, (2, n) float64, or None for charges."""
        if self.charges and self.dipoles:
            raise _core.InvalidInput("as_linear_operator: the Solver takes charges and dipoles; "
                                     "the operator maps one kind: build it with one")
        if not self.dipoles:
            if dipole_vectors is not None:
                raise _core.InvalidInput("as_linear_operator: dipole_vectors given, but the "
                                         "Solver was built with dipoles=False")
            return None
        if dipole_vectors is None:
            raise _core.InvalidInput("as_linear_operator: a Solver of dipoles needs "
                                     "dipole_vectors, shape (2, n_sources)")
        v = np.array(dipole_vectors, dtype=np.float64)
        if v.shape != (2, self.shape[1]):
            raise _core.InvalidInput(f"as_linear_operator: dipole_vectors must have shape "
                                     f"(2, {self.shape[1]}), got {v.shape}")
        return v

    def __repr__(self):
        m, n = self.shape
        o = self.options
        return (f"mlfma2d.Solver(n_sources={n}, n_targets={m}, eps={o['eps']:g}, "
                f"backend={self.auto_choice['backend']!r}, ct={self.stats['ct']}, "
                f"levels={self.stats['levels']}, field={o['field']}, hessian={o['hessian']}, "
                f"densities={o['densities']}, charges={o['charges']}, dipoles={o['dipoles']})")


def direct_sum(x, y, q=None, targets=None, *, dipole_strengths=None, dipole_vectors=None,
               field=False, hessian=False, which=None, threads=None):
    """Direct O(N M) summation, the reference for accuracy (same convention as Solver), for
    charges q and/or dipoles (dipole_strengths with dipole_vectors): the kinds are those given.

    Shapes as Solver.evaluate: q and dipole_strengths (n,) or (nd, n), any nd >= 1, the same
    shape when both are given; dipole_vectors (2, n) or (nd, 2, n). targets: None (the sources,
    self pairs skipped) or a pair (tx, ty). which: None (every target) or indices of the targets
    to evaluate. Returns the potential, (potential, ex, ey) with field=True, or a Result with
    hessian=True, one entry per evaluated target ((nd, len) for 2-D strengths). Raises
    InvalidInput, as Solver does, for a coordinate or strength that is NaN or infinite.
    """
    r = _core.direct_sum(x, y, q, dipole_strengths, dipole_vectors, targets, bool(field),
                         bool(hessian), which, 0 if threads is None else threads)
    return _result(r, bool(hessian))


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
