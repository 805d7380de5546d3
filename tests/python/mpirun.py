"""What the Python tests share to run programs under MPI and compare their output: the launcher,
the environment for child processes, and the whole content of an output tree."""
import os
import pathlib
import shutil

import h5py
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))


def datasets_of(files):
    """Every dataset of `files` (HDF5) by path; a path in two files fails."""
    stored = {}
    for path in files:
        with h5py.File(path, "r") as f:
            def visit(name, obj):
                if isinstance(obj, h5py.Dataset):
                    assert name not in stored, f"{name} stored twice ({pathlib.Path(path).name})"
                    stored[name] = obj[()]
            f.visititems(visit)
    return stored


def iteration_datasets(out, simulation, iteration):
    """Every dataset of one iteration's per-core files (<simulation>_It<i>_Pr*.h5) by path, and
    how many files there were; a path in two files fails."""
    files = sorted(pathlib.Path(out).glob(f"{simulation}_It{iteration}_Pr*.h5"))
    return datasets_of(files), len(files)


def mpiexec():
    """The launcher scripts/env.sh chose (ECLUSE_MPIEXEC), else Open MPI's."""
    return os.environ.get("ECLUSE_MPIEXEC") or shutil.which("mpiexec.openmpi") or "mpiexec"


def child_env():
    """Running as root under Open MPI, oversubscribed; the source tree's package and this build's
    native module first on PYTHONPATH, whatever the venv holds."""
    path = [str(ROOT / "python"), str(BUILD / "python"), os.environ.get("PYTHONPATH", "")]
    return dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_rmaps_base_oversubscribe="1", PYTHONPATH=os.pathsep.join(path))


def h5_contents(root):
    """Every file, group, dataset (dtype, shape, bytes) and attribute under root."""
    contents = {}
    for path in sorted(pathlib.Path(root).rglob("*.h5")):
        name_of_file = str(path.relative_to(root))
        with h5py.File(path, "r") as f:
            def visit(name, obj):
                attrs = {k: np.asarray(v).tobytes() for k, v in obj.attrs.items()}
                data = ((obj.dtype.str, obj.shape, obj[()].tobytes())
                        if isinstance(obj, h5py.Dataset) else None)
                contents[(name_of_file, name)] = (attrs, data)
            f.visititems(visit)
            contents[(name_of_file, "/")] = (
                {k: np.asarray(v).tobytes() for k, v in f.attrs.items()}, None)
    return contents
