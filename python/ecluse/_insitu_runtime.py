"""The writer side of <pyscript>s, called by libecluse_python (python/embed/): loads the scripts
once, builds DD (Damaris 1.7's shape) for each iteration from read-only views of the writer's
buffer, calls main(DD) (or runs a Damaris script without main whole, with DD as DamarisData),
prints a failing script's traceback with the iteration, and starts and stops this writer's Dask
worker. Scripts use ecluse.insitu (or damaris4py), not this module."""
import ast
import json
import os
import runpy
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

_state = None

# Damaris's type_string of a variable, by NumPy kind and size.
_TYPE_STRINGS = {"i1": "_char", "i2": "_short", "i4": "_int", "i8": "_longint",
                 "f4": "_float", "f8": "_double"}


class _Script:
    """A <pyscript>. A file that defines main at its top level runs that top level once, here
    (under its own __name__, so `if __name__ == '__main__': main(DamarisData)` does not call
    main again), then main(DD) at each call. A file without main is a Damaris script written as
    top-level code: as Damaris does, the whole file runs at each call, with DD as DamarisData
    and __name__ == '__main__', in a namespace kept across calls."""

    def __init__(self, spec):
        self.name = spec["name"]
        self.file = spec["file"]
        self.frequency = spec["frequency"]
        self.variables = [v["name"] for v in spec["variables"]]
        self.once = {v["name"] for v in spec["variables"] if not v["time_varying"]}
        with open(self.file, "rb") as f:
            source = f.read()
        tree = ast.parse(source, self.file)
        if _binds_main(tree):
            namespace = runpy.run_path(self.file, run_name=f"ecluse_pyscript_{self.name}")
            self.main = namespace.get("main")
            self.code = self.namespace = None
        else:
            self.main = None
            self.code = compile(tree, self.file, "exec")
            self.namespace = {"__name__": "__main__", "__file__": self.file,
                              "__builtins__": __builtins__}
        self.kept_warned = False

    def call(self, DD):
        if self.code is None:
            self.main(DD)
            return
        self.namespace["DamarisData"] = DD
        try:
            exec(self.code, self.namespace)
        finally:
            self.namespace.pop("DamarisData", None)  # its views are not valid after this call


def _binds_main(tree):
    """Whether a module's top level defines, assigns or imports the name main."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "main":
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name) == "main" for a in node.names):
                return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "main" for t in targets):
                return True
    return False


class _State:
    def __init__(self, setup, comm):
        self.rank = setup["rank"]
        self.size = setup["size"]
        self.comm_handle = comm
        self.damaris_env = setup["damaris_env"]
        self.dask = setup["dask"]
        self.scripts = [_Script(spec) for spec in setup["scripts"]]
        self.clients = setup["clients"]
        self.worker = None
        self.client = None
        self.comm = None

    def dask_env(self):
        d = self.dask
        if not d.get("scheduler_file"):
            return {"dask_scheduler_file": "", "dask_workers_name": "", "dask_nworkers": 0,
                    "dask_threads_per_worker": 0}
        return {"dask_scheduler_file": d["scheduler_file"],
                "dask_workers_name": d["workers_name"], "dask_nworkers": self.size,
                "dask_threads_per_worker": _threads(d)}


def state():
    """The runtime of this writer; RuntimeError outside a server running <pyscript>s."""
    if _state is None:
        raise RuntimeError("no <pyscript> runtime in this process: ecluse.insitu works inside "
                           "main(DD) of a script named in <scripts>")
    return _state


def _threads(dask):
    return dask.get("nthreads") or int(os.environ.get("OMP_NUM_THREADS", "1") or 1)


class _Worker:
    """This writer's `dask worker` process, attached to the scheduler of scheduler-file."""

    def __init__(self, dask, rank):
        self.scheduler_file = dask["scheduler_file"]
        self.timeout = float(dask["timeout"])
        self.keep = dask["keep_workers"]
        self.name = f"{dask['workers_name']}-{rank}"
        started = time.monotonic()
        self._wait_for_scheduler_file(started)
        self.log = os.path.join(tempfile.gettempdir(), f"{self.name}.log")
        command = [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
                   self.scheduler_file, "--name", self.name, "--nthreads", str(_threads(dask)),
                   "--no-nanny", "--no-dashboard"]
        if not self.keep:  # the worker ends with this server, even if it is killed
            command += ["--preload", "ecluse._worker_watch"]
        package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        path = [package_dir, os.environ.get("PYTHONPATH", "")]
        environment = dict(os.environ, ECLUSE_WORKER_PARENT=str(os.getpid()),
                           PYTHONPATH=os.pathsep.join(p for p in path if p))
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, env=environment,
                                            start_new_session=self.keep)
        self.client, self.address = self._attach(started)
        self.start_seconds = time.monotonic() - started

    def _wait_for_scheduler_file(self, started):
        while not os.path.exists(self.scheduler_file):
            if time.monotonic() - started > self.timeout:
                raise RuntimeError(
                    f"scheduler-file '{self.scheduler_file}' does not exist after "
                    f"{self.timeout:g} s: start the scheduler first (dask scheduler "
                    f"--scheduler-file {self.scheduler_file}) or raise timeout= on <pyscript>")
            time.sleep(0.05)

    def _attach(self, started):
        from distributed import Client
        client = Client(scheduler_file=self.scheduler_file, timeout=f"{self.timeout}s")
        while True:
            for address, info in client.scheduler_info()["workers"].items():
                if info.get("name") == self.name:
                    return client, address
            if self.process.poll() is not None or time.monotonic() - started > self.timeout:
                client.close()
                self.stop()
                raise RuntimeError(f"Dask worker '{self.name}' did not join the scheduler of "
                                   f"'{self.scheduler_file}' within {self.timeout:g} s; its log: "
                                   f"{self.log}")
            time.sleep(0.05)

    def stop(self):
        if self.keep or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(self.timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start(setup_text, comm):
    """Called once per writer process by ecluse_python_start."""
    global _state
    if _state is not None:
        return
    _state = _State(json.loads(setup_text), comm)
    if _state.dask.get("scheduler_file"):
        _state.worker = _Worker(_state.dask, _state.rank)
        _state.client = _state.worker.client


def _world_rank(s):
    """This process's rank in MPI_COMM_WORLD: the N of Ecluse's other [ecluse N] lines (the rank
    in the communicator given to initialize, MPI_COMM_WORLD in Damaris programs)."""
    try:
        from mpi4py import MPI
    except ImportError:  # a script may use no communicator: the launcher's variables then
        return int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", s.rank)))
    return MPI.COMM_WORLD.Get_rank()


def _type_string(dtype):
    return _TYPE_STRINGS.get(np.dtype(dtype).str[1:], "")


def _variable_entry(type_string=""):
    return {"numpy_data": {}, "block_source": [], "block_domains": [], "sort_data": [],
            "ghosts": {}, "type_string": type_string}


def _iteration_data(iteration, blocks, s, arrays, variables=(), once=()):
    """DD['iteration_data']; every NumPy view made is appended to `arrays`. Every variable of the
    script has an entry, empty on a server that received none of its blocks (as in Damaris),
    but the variables in `once` (not time-varying) are given at iteration 0 only, as Damaris
    does: after it they have no entry, even when blocks of theirs came."""
    data = {"iteration": iteration}
    skip = set(once) if iteration > 0 else set()
    for name in variables:
        if name not in skip:
            data[name] = _variable_entry()
    magic = s.damaris_env["simulation_magic_number"]
    for variable, dtype, source, block, dims, lo, hi, position, view in blocks:
        if variable in skip:
            continue
        entry = data.setdefault(variable, _variable_entry())
        entry["type_string"] = entry["type_string"] or _type_string(dtype)
        key = f"P{source}_B{block}"
        array = np.frombuffer(view, dtype=dtype).reshape(dims)
        arrays.append(array)
        entry["numpy_data"][key] = array
        entry["block_source"].append(source)
        entry["block_domains"].append(block)
        offsets = list(position) if position is not None else [0] * len(dims)
        entry["sort_data"].append([f"S{s.rank}_I{iteration}_{magic}", key, offsets])
        entry["ghosts"][key] = (tuple(lo), tuple(hi))
    for entry in data.values():
        if isinstance(entry, dict):
            entry["sort_list"] = entry["sort_data"]  # the name of Damaris before 1.7
    return data


def _run(script, iteration, data, s):
    DD = {"damaris_env": s.damaris_env, "dask_env": s.dask_env(), "iteration_data": data}
    try:
        script.call(DD)
        return None
    except BaseException as error:  # noqa: B902  (a script's SystemExit must not end the server)
        text = "".join(traceback.format_exception(type(error), error, _script_frames(error)))
        sys.stderr.write(f"[ecluse {_world_rank(s)}] pyscript '{script.name}' ({script.file}) "
                         f"failed at iteration {iteration}; the run goes on and calls it again at "
                         f"its next iteration:\n{text}")
        sys.stderr.flush()
        return f"{type(error).__name__}: {error}"


def _script_frames(error):
    """The traceback from the script's first frame on (this module's frames left out)."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return tb


def iteration(index, iteration_number, blocks):
    """Runs script `index` (main(DD), or the whole file): None when it returned, else the
    error's one-line text."""
    s = state()
    script = s.scripts[index]
    arrays = []
    data = _iteration_data(iteration_number, blocks, s, arrays, script.variables, script.once)
    result = _run(script, iteration_number, data, s)
    del data
    sys.stdout.flush()
    _check_released(script, iteration_number, arrays)
    for block in blocks:
        block[-1].release()
    return result


def _check_released(script, iteration_number, arrays):
    """The views' memory is the writer's buffer, reused once this call returns: a script that
    kept an array of DD (or a view of one) past the call is told, once, to copy it."""
    kept = any(sys.getrefcount(array) > 3 for array in arrays)  # list, loop name, argument
    if kept and not script.kept_warned:
        script.kept_warned = True
        sys.stderr.write(f"[ecluse] pyscript '{script.name}' kept a NumPy view of iteration "
                         f"{iteration_number}'s blocks after the script returned: that memory is "
                         "reused for later blocks; keep a copy (np.array(view)) instead.\n")


def finish():
    """At finalize: the Dask worker is stopped (unless keep-workers), streams flushed."""
    s = _state
    if s is not None and s.worker is not None:
        if s.client is not None:
            s.client.close()
        s.worker.stop()
    sys.stdout.flush()
    sys.stderr.flush()
