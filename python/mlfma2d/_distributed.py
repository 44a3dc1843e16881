"""The evaluation over MPI ranks from mpi4py: the library's DistributedSolver
(mlfma2d/distributed.hpp, docs/distributed.md)."""
from . import _core
from ._solver import _Evaluator, _solver_options


class DistributedSolver(_Evaluator):
    """The fast multipole solver over the ranks of an MPI communicator (mpi4py).

    DistributedSolver(comm, x, y, targets=None, **keywords)

    comm: an mpi4py communicator (mpi4py.MPI.COMM_WORLD, or any other); x, y: this rank's part of
    the sources (any part: unsorted, from anywhere; a rank may pass none, not every rank);
    targets: None (the sources are the targets) or a pair (tx, ty) of this rank's targets. The
    keywords and their defaults are Solver's, the same on every rank. The ranks build one tree
    together, each evaluates its part of it; evaluate() gives the outputs at this rank's targets,
    in its order, equal to the one-process Solver's to within eps (with the same ct: to rounding).

    Every call that computes is collective (the constructor, evaluate(), gather_figures()): every
    rank makes it, in the same order, and evaluate() with the same batch shape on every rank. An
    error on any rank is raised on every rank ("rank R: ..."), so none is left waiting. Raises
    RuntimeError, saying why, in a build without MPI or without mpi4py (mlfma2d.DISTRIBUTED);
    TypeError when comm is not an mpi4py communicator. evaluate(), shape, stats, timings and the
    other figures are Solver's, for this rank's part.
    """

    def __init__(self, comm, x, y, targets=None, **keywords):
        if _core.DISTRIBUTED:
            raise RuntimeError(_core.DISTRIBUTED)
        options = _solver_options(**keywords)
        self._solver = _core.DistributedSolver(comm, x, y, targets, options)
        self._fixed = self._solver.options

    @property
    def figures(self):
        """This rank's DistributedFigures, as a dict: its points, ghosts, boxes, the last
        evaluation's seconds, communication and bytes."""
        return self._solver.figures

    def gather_figures(self, root=0):
        """Every rank's figures (a list of dicts, rank order) on `root`, [] on the others.
        Collective."""
        return self._solver.gather_figures(int(root))

    def __repr__(self):
        m, n = self.shape
        return (f"mlfma2d.DistributedSolver(rank={self.figures['rank']} of "
                f"{self.figures['ranks']}, n_sources={n}, n_targets={m}, "
                f"backend={self.auto_choice['backend']!r}, ct={self.stats['ct']})")
