"""The Python environment as scripts/setup.sh leaves it: `import ecluse` in the venv (no
PYTHONPATH) finds the package of python/ and the native module of the build beside it."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_venv_imports_the_package_and_its_native_module():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = ("import ecluse, ecluse._native as n; print(ecluse.__file__); print(n.__file__); "
            "print(ecluse.Session.__name__, ecluse.__version__)")
    result = subprocess.run([sys.executable, "-c", code], cwd="/", env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    package, native, names = result.stdout.splitlines()
    assert package == str(ROOT / "python" / "ecluse" / "__init__.py")
    build = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
    assert pathlib.Path(native).parent == build / "python" / "ecluse"
    assert names == "Session 0.1.0"


def test_requirements_are_pinned_between_bounds():
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        requirement = line.split("#", 1)[0].strip()
        if requirement:
            assert ">=" in requirement and "<" in requirement.replace("<=", ""), requirement


def test_mpi4py_runs_on_the_mpi_family_of_the_build():
    family = os.environ.get("ECLUSE_MPI", "openmpi")
    result = subprocess.run([sys.executable, "-c",
                             "from mpi4py import MPI; print(MPI.get_vendor()[0])"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == {"openmpi": "Open MPI", "mpich": "MPICH"}[family]
