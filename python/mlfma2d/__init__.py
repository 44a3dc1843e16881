"""mlfma2d: a multilevel fast multipole method for 2D electrostatics (the log kernel).

    phi(x_i) = sum_j q_j log|x_i - y_j| + sum_j d_j v_j . (x_i - y_j) / |x_i - y_j|^2
    E(x_i) = -grad phi(x_i),    H(x_i) = the Hessian of phi

for sources y_j with charges q_j and/or dipoles (strength d_j, orientation v_j) and targets x_i; a
pair whose points coincide is skipped. Build a Solver once for a geometry, then evaluate any
number of charge vectors on it, or several densities at once (densities=nd). solve() finds the
surface charges, fields and capacitance of conductors held at given potentials. The whole API,
with every argument, default and exception: docs/python.md.
"""
import atexit

from ._core import (MAX_LEVELS, MAX_TERMS, BackendUnavailable, CudaError, Error, InvalidInput,
                    IoError, RuntimeFailure)
from ._core import DISTRIBUTED
from ._core import version as _version
from ._distributed import DistributedSolver
from ._electrostatics import (EPSILON_0, ContourFile, Contours, ElectrostaticSolver,
                              FieldAtTargets, LineMode, LineParameters, MeshLevel, Panels,
                              Solution, coax_capacitance, contour_shapes,
                              eccentric_coax_capacitance, generate_contours, read_contours, solve,
                              strip_sigma, two_wire_capacitance, write_contours, write_rlgc,
                              write_solution)
from ._io import (PointSet, ResultData, format_of, generate_points, point_set_shapes, read_points,
                  read_result, read_targets, write_points, write_result)
from ._solver import (Result, Solver, backends, direct_sum, error_norms, start_device,
                      terms_for_eps, wait_for_device)

__version__ = _version()

# A device start still in the CUDA driver when the interpreter ends would race its teardown.
atexit.register(wait_for_device)

__all__ = [
    "Solver", "Result", "DistributedSolver", "DISTRIBUTED", "direct_sum", "backends", "terms_for_eps", "error_norms", "start_device",
    "wait_for_device", "MAX_TERMS", "MAX_LEVELS",
    "PointSet", "ResultData", "read_points", "read_targets", "write_points", "read_result",
    "write_result", "generate_points", "point_set_shapes", "format_of",
    "solve", "ElectrostaticSolver", "Solution", "Contours", "ContourFile", "Panels",
    "FieldAtTargets", "LineParameters", "LineMode", "MeshLevel", "generate_contours",
    "contour_shapes", "read_contours", "write_contours", "write_solution", "write_rlgc", "coax_capacitance", "eccentric_coax_capacitance", "two_wire_capacitance",
    "strip_sigma", "EPSILON_0",
    "Error", "InvalidInput", "IoError", "BackendUnavailable", "RuntimeFailure", "CudaError",
    "__version__",
]
