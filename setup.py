"""The pip route (`pip install --no-build-isolation .`, docs/python.md): setuptools runs CMake,
which builds the extension mlfma2d._core exactly as the CMake route does (python/CMakeLists.txt),
and puts it beside the pure-Python files of python/mlfma2d in the wheel.

The wheel is self-contained: the library is built static (MLFMA2D_SHARED=OFF) into the extension,
so nothing outside the package has to be found after install. Only the library and the extension
are built (no program, tests or benchmarks). The CUDA back ends are compiled when nvcc is found,
as in the CMake route.

Environment: CMAKE_ARGS (extra configure arguments, as scripts/setup takes them),
CMAKE_BUILD_PARALLEL_LEVEL (build jobs; default: every CPU). ccache is used when it is on PATH.
"""
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# pip builds a wheel through setuptools' bdist_wheel, which needs the wheel package: without it
# setuptools only says "invalid command 'bdist_wheel'".
try:
    import wheel  # noqa: F401
except ImportError:
    sys.exit(f"setup.py: {sys.executable} has no `wheel` module: install Debian's python3-wheel "
             "and make the venv with --system-site-packages (it sees Debian's wheel and NumPy)")

SOURCE = pathlib.Path(__file__).resolve().parent
# Not setuptools' default build/: that is the CMake route's build tree (scripts/setup).
BUILD_BASE = "build-pip"


def cmake_project_version():
    text = (SOURCE / "CMakeLists.txt").read_text()
    match = re.search(r"project\(\s*mlfma2d\s+VERSION\s+([0-9.]+)", text)
    if not match:
        sys.exit("setup.py: no `project(mlfma2d VERSION ...)` in CMakeLists.txt")
    return match.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        cmake = shutil.which("cmake")
        if cmake is None:
            sys.exit("setup.py: cmake not found (Debian: apt-get install cmake)")
        build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
        args = [
            "-S", str(SOURCE), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DMLFMA2D_SHARED=OFF",
            "-DMLFMA2D_BUILD_APP=OFF", "-DMLFMA2D_BUILD_TESTS=OFF", "-DMLFMA2D_BUILD_BENCH=OFF",
            "-DMLFMA2D_BUILD_PYTHON=ON", "-DMLFMA2D_PYTHON_REQUIRED=ON",
            # The pip route stays without MPI (a wheel that needs no MPI at run time); the
            # DistributedSolver binding comes with the CMake build (scripts/setup, docs/python.md).
            "-DMLFMA2D_WITH_MPI=OFF",
            # The interpreter pip runs (a venv's python) is the one the module is for.
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        user_args = shlex.split(os.environ.get("CMAKE_ARGS", ""))
        if shutil.which("ccache") and not any("COMPILER_LAUNCHER" in a for a in user_args):
            args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
                     "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"]
        subprocess.run([cmake, *args, *user_args], check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run([cmake, "--build", str(build_dir), "--target", "mlfma2d_python",
                        "--parallel", jobs], check=True)

        # The extension as python/CMakeLists.txt lays it out: <build>/python/mlfma2d/_core.<suffix>
        built = sorted((build_dir / "python" / "mlfma2d").glob("_core.*.so"))
        if len(built) != 1:
            sys.exit(f"setup.py: expected one _core extension in {build_dir}/python/mlfma2d, "
                     f"found {[p.name for p in built]}")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


# egg_info's scratch files go there too, not into python/.
(SOURCE / BUILD_BASE).mkdir(exist_ok=True)
setup(
    version=cmake_project_version(),
    package_dir={"": "python"},
    packages=["mlfma2d"],
    ext_modules=[Extension("mlfma2d._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
)
