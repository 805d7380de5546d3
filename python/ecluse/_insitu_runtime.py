"""The writer side of <pyscript>s, called by libecluse_python (python/embed/): loads the scripts
once, builds DD (Damaris 1.7's shape) for each iteration from read-only views of the writer's
buffer, calls main(DD) (or runs a Damaris script without main whole, with DD as DamarisData),
prints a failing script's traceback with the iteration, and starts and stops this writer's Dask
worker. Scripts use ecluse.insitu (or damaris4py), not this module."""
import ast
import contextlib
import gc
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

# How long a writer waits for a scheduler-file that does not exist yet. Damaris does not wait;
# `dask scheduler` writes its file about 2 s after it starts, so a job script that starts it in
# the background right before mpiexec still gets Dask, and a run without a scheduler loses 3 s.
_SCHEDULER_FILE_WAIT = 3.0
# At least this long for a worker to start and join: timeout= bounds the scheduler connection (as
# in Damaris, default 2 s there), while a worker's Python start and imports take seconds on a
# busy node.
_WORKER_JOIN_SECONDS = 60.0
_AGREE_TAG = 31415  # the point-to-point messages of the writers' agreement on Dask
_SILENT = object()  # a writer that did not answer the agreement in time


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
        _importable_beside(self.file)
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


def _importable_beside(file):
    """A script imports the modules beside it, as `python script.py` would (Damaris's did not:
    its users had to set PYTHONPATH): its directory goes on sys.path, after the paths already
    there, so that it shadows nothing installed."""
    directory = os.path.dirname(os.path.abspath(file))
    if directory not in sys.path:
        sys.path.append(directory)


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
        self.sends = []  # the agreement's send requests, kept until they complete

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
    """nthreads, else OMP_NUM_THREADS's outer level ("4,2" is 4), else 1."""
    if dask.get("nthreads"):
        return dask["nthreads"]
    outer = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    return int(outer) if outer.isdigit() and int(outer) > 0 else 1


class _Worker:
    """This writer's `dask worker` process, attached to the scheduler `client` is connected to;
    its output goes to a log in the temporary directory, removed when it stops cleanly."""

    def __init__(self, dask, rank, client, started):
        self.scheduler_file = dask["scheduler_file"]
        self.timeout = float(dask["timeout"])
        self.join_seconds = max(self.timeout, _WORKER_JOIN_SECONDS)
        self.keep = dask["keep_workers"]
        self.name = f"{dask['workers_name']}-{rank}"
        self.log = os.path.join(tempfile.gettempdir(), f"{self.name}.log")
        self.process = self._launch(_threads(dask))
        self.address = self._join(client)
        self.start_seconds = time.monotonic() - started

    def _launch(self, nthreads):
        command = [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
                   self.scheduler_file, "--name", self.name, "--nthreads", str(nthreads),
                   "--no-nanny", "--no-dashboard"]
        if not self.keep:  # the worker ends with this server, even if it is killed
            command += ["--preload", "ecluse._worker_watch"]
        package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        path = [package_dir, os.environ.get("PYTHONPATH", "")]
        environment = dict(os.environ, ECLUSE_WORKER_PARENT=str(os.getpid()),
                           PYTHONPATH=os.pathsep.join(p for p in path if p))
        with open(self.log, "ab") as log:
            return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=environment,
                                    start_new_session=self.keep)

    def _join(self, client):
        """The worker's address once the scheduler lists it; RuntimeError (its log kept) when
        it exits first or is not listed within join_seconds."""
        deadline = time.monotonic() + self.join_seconds
        while True:
            for address, info in client.scheduler_info()["workers"].items():
                if info.get("name") == self.name:
                    return address
            if self.process.poll() is not None:
                self._failed_to_join(client, f"ended ({_exit_text(self.process.returncode)}) "
                                             f"before joining the scheduler of "
                                             f"'{self.scheduler_file}'")
            if time.monotonic() > deadline:
                self._failed_to_join(client, f"did not join the scheduler of "
                                             f"'{self.scheduler_file}' within "
                                             f"{self.join_seconds:g} s (max(timeout=, "
                                             f"{_WORKER_JOIN_SECONDS:g} s))")
            time.sleep(0.05)

    def _failed_to_join(self, client, what):
        client.close()
        if self.process.poll() is None:
            self._end_process()
        raise RuntimeError(f"Dask worker '{self.name}' {what}; its log: {self.log}")

    def stop(self, client):
        """At finalize, unless keep-workers: retired through `client` (as Damaris does: the
        scheduler then closes it cleanly, where a terminated worker leaves a CommClosedError
        traceback in the scheduler's log), its process ended and its log removed. Returns what
        went wrong (its log kept) or None."""
        if self.keep:
            return None
        if self.process.poll() is not None:
            return (f"the Dask worker '{self.name}' ended during the run "
                    f"({_exit_text(self.process.returncode)}); its log is kept: {self.log}")
        retired = self._retire(client)
        if not ((retired and self._exited_within(self.timeout)) or self._end_process()):
            return (f"the Dask worker '{self.name}' did not stop within {self.timeout:g} s of "
                    f"SIGTERM and was killed; its log is kept: {self.log}")
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.log)
        return None

    def _retire(self, client):
        """Whether the scheduler retired the worker. It refuses while the worker holds data no
        other worker can take: asked again within `timeout`, since the release of the last
        futures of the scripts may still be on its way to the scheduler."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                retired = client.retire_workers(workers=[self.address], close_workers=True,
                                                callback_timeout=self.timeout)
            except Exception:  # noqa: BLE001  (scheduler gone: the process is terminated)
                return False
            if self.address in retired or time.monotonic() > deadline:
                return self.address in retired
            time.sleep(0.2)

    def _end_process(self):
        """Terminates the process, then kills it: whether it ended without being killed."""
        self.process.terminate()
        if self._exited_within(self.timeout):
            return True
        self.process.kill()
        self.process.wait()
        return False

    def _exited_within(self, seconds):
        try:
            self.process.wait(seconds)
            return True
        except subprocess.TimeoutExpired:
            return False


def _exit_text(returncode):
    if returncode < 0:
        return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def start(setup_text, comm):
    """Called once per writer process by ecluse_python_start."""
    global _state
    if _state is not None:
        return
    _state = _State(json.loads(setup_text), comm)
    if _state.dask.get("scheduler_file"):
        _start_dask(_state)


def _start_dask(s):
    """Connects this writer to the scheduler of scheduler-file and starts its worker. When a
    writer cannot reach the scheduler, every writer runs without Dask, as Damaris does: writer 0
    says why, once, and the scripts see dask_scheduler_file == ""."""
    started = time.monotonic()
    client, problem = _connect(s.dask)
    problem = _agree(s, problem)
    if problem is not None:
        if client is not None:
            client.close()
        _without_dask(s, problem)
        return
    s.client = client
    s.worker = _Worker(s.dask, s.rank, client, started)


def _connect(dask):
    """(a Client of the scheduler of scheduler-file, None), else (None, why not): the file is
    waited for _SCHEDULER_FILE_WAIT, the connection `timeout` seconds (Damaris's meaning)."""
    path = dask["scheduler_file"]
    if not _appears(path, _SCHEDULER_FILE_WAIT):
        return None, (f"the Dask scheduler file '{path}' does not exist (waited "
                      f"{_SCHEDULER_FILE_WAIT:g} s)")
    from distributed import Client
    timeout = float(dask["timeout"])
    try:
        return Client(scheduler_file=path, timeout=f"{timeout:g}s"), None
    except Exception as error:  # noqa: BLE001  (OSError: unreachable; ValueError: not its file)
        text = str(error).strip().splitlines()
        return None, (f"cannot connect to the Dask scheduler of '{path}' within {timeout:g} s "
                      f"(timeout=) ({type(error).__name__}: {text[0] if text else ''})")


def _appears(path, seconds):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _agree(s, problem):
    """The first problem of any writer, None when every writer reached the scheduler: all run
    with Dask or all without. Point-to-point over the writers' communicator, not a collective:
    a writer that failed before start (an unreadable script file) goes to initialize's own
    collective check, which a collective here would mismatch; a silent writer is left out."""
    comm = _writers_comm(s)
    size = comm.Get_size()
    # every writer gets here within the file wait and the connection timeout of each other
    seconds = _SCHEDULER_FILE_WAIT + float(s.dask["timeout"]) + _WORKER_JOIN_SECONDS
    if comm.Get_rank() != 0:
        s.sends.append(comm.isend(problem, dest=0, tag=_AGREE_TAG))
        answer = _receive(comm, 0, time.monotonic() + 2 * seconds)
        return problem if answer is _SILENT else answer
    deadline = time.monotonic() + seconds
    answers = [problem] + [_receive(comm, r, deadline) for r in range(1, size)]
    first = next((a for a in answers if a is not _SILENT and a is not None), None)
    s.sends += [comm.isend(first, dest=r, tag=_AGREE_TAG) for r in range(1, size)]
    return first


def _receive(comm, source, deadline):
    """The agreement's message from `source`, or _SILENT at `deadline` (polled, so that a
    writer that never sends cannot hang this one)."""
    while not comm.iprobe(source=source, tag=_AGREE_TAG):
        if time.monotonic() > deadline:
            return _SILENT
        time.sleep(0.01)
    return comm.recv(source=source, tag=_AGREE_TAG)


def _writers_comm(s):
    if s.comm is None:
        from mpi4py import MPI
        s.comm = MPI.Comm.f2py(s.comm_handle)
    return s.comm


def _without_dask(s, problem):
    path = s.dask["scheduler_file"]
    s.dask = dict(s.dask, scheduler_file="")
    if s.rank == 0:
        _warn(s, f"<pyscript>: {problem}: the scripts run without Dask (dask_scheduler_file is "
                 f"\"\", no Dask worker is started). To use Dask, start the scheduler first: dask "
                 f"scheduler --scheduler-file {path}")


def _warn(s, text):
    sys.stderr.write(f"[ecluse {_world_rank(s)}] warning: {text}\n")
    sys.stderr.flush()


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


_interrupted = False  # a KeyboardInterrupt in a script, for the Python simulation to raise


def take_interrupt():
    """Whether a script was interrupted by Ctrl-C since the last call (a Python simulation under
    time partitioning runs the scripts in its own process: Session.end_iteration raises
    KeyboardInterrupt then)."""
    global _interrupted
    interrupted, _interrupted = _interrupted, False
    return interrupted


def _run(script, iteration, data, s):
    global _interrupted
    DD = {"damaris_env": s.damaris_env, "dask_env": s.dask_env(), "iteration_data": data}
    try:
        script.call(DD)
        return None
    except KeyboardInterrupt:
        _interrupted = True
        return "KeyboardInterrupt"
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
    if result is not None:
        # A failure's frames (DD among their locals) may sit in a reference cycle with its
        # exception (distributed's FutureCancelledError does): freed now, they are not taken
        # for a view the script kept.
        gc.collect()
    sys.stdout.flush()
    _check_released(script, iteration_number, arrays, _world_rank(s))
    for block in blocks:
        block[-1].release()
    return result


def _check_released(script, iteration_number, arrays, rank):
    """The views' memory is the writer's buffer, reused once this call returns: a script that
    kept an array of DD or a view of one (a slice, insitu.interior, insitu.blocks) past the call
    is told, once, to copy it. Each array of DD is a reshape of the 1-D array over the buffer
    (its base), which every view made from it refers to instead of to the array itself."""
    # Our own references: the list, the loop name and getrefcount's argument; the base's: the
    # array's base pointer and the argument.
    kept = any(sys.getrefcount(array) > 3 or sys.getrefcount(array.base) > 2
               for array in arrays)
    if kept and not script.kept_warned:
        script.kept_warned = True
        sys.stderr.write(f"[ecluse {rank}] pyscript '{script.name}' kept a NumPy view of "
                         f"iteration {iteration_number}'s blocks after the script returned: that "
                         "memory is reused for later blocks; keep a copy (np.array(view)) "
                         "instead.\n")


def finish():
    """At finalize: the Dask worker is retired and stopped (unless keep-workers), streams
    flushed, and the runtime forgotten: a later session of this process (a second
    initialize) starts afresh with its own scripts and communicator."""
    global _state
    s = _state
    if s is not None and s.worker is not None:
        gc.collect()  # futures the scripts left in reference cycles: their data blocks retiring
        problem = s.worker.stop(s.client)
        s.client.close()
        if problem:
            _warn(s, problem)
    _state = None
    sys.stdout.flush()
    sys.stderr.flush()
