"""Preloaded into the Dask worker a <pyscript> server starts (dask worker --preload): the worker
exits when that server is gone (killed, MPI_Abort), so no worker outlives its job unless
keep-workers="yes" (then it is not preloaded)."""
import os
import threading
import time


def _watch(parent):
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def dask_setup(worker):  # noqa: ARG001  (distributed's preload entry point)
    parent = int(os.environ.get("ECLUSE_WORKER_PARENT", os.getppid()))
    threading.Thread(target=_watch, args=(parent,), daemon=True, name="ecluse-parent").start()
