"""ecluse.Session: the C API as a Python object over the native module (ecluse._native).

    from mpi4py import MPI
    import ecluse

    with ecluse.Session("simulation.xml", MPI.COMM_WORLD) as s:
        if s.is_client:                        # servers run their loop here and get False
            s.set_position("temperature", (offset, 0))
            for it in range(n):
                s.write("temperature", field)  # a NumPy array of the layout's dtype and shape
                s.end_iteration()
"""
import numbers
import operator
import os
import struct
import sys
import time
import traceback
import warnings
import weakref

import numpy as np
from mpi4py import MPI  # before the native module: MPI is initialized by mpi4py

from . import _insitu_runtime
from .errors import Error, ViewWarning

try:
    from . import _native
except ImportError as e:
    raise ImportError(
        f"ecluse.Session needs the native module ecluse._native, which could not be imported "
        f"({e}). Build it with CMake (the target ecluse_native, built by default when "
        f"-DPython_EXECUTABLE names a Python with nanobind: cmake --build build), then make "
        f"<build>/python importable: scripts/setup.sh writes ecluse-native.pth into the venv, "
        f"or set PYTHONPATH=<build>/python.") from e

# ecluse_type order (ecluse.h): NumPy dtypes, XML names, struct formats. Index 6 is string (its
# blocks are bytes, its values str); the unsigned types follow it.
_DTYPES = [np.dtype(t) for t in ("int8", "int16", "int32", "int64", "float32", "float64", "uint8",
                                 "uint8", "uint16", "uint32", "uint64")]
_XML_TYPES = ["char", "short", "int", "long", "float", "double", "string",
              "uint8", "uint16", "uint32", "uint64"]
_FORMATS = ["=b", "=h", "=i", "=q", "=f", "=d", None, "=B", "=H", "=I", "=Q"]
_STRING = 6
_ARGUMENT_ERROR = "ECLUSE_ARGUMENT_ERROR"


def _argument_error(message):
    return Error(message, _ARGUMENT_ERROR, 7)


def _name(what, name):
    """A name as the C library takes it: a str without NUL (C would cut it there and use
    another name)."""
    if isinstance(name, str) and "\0" in name:
        raise _argument_error(f"{what} name {name!r} holds a NUL character; C names end there: "
                              "remove it.")
    return name


def _exception_wait():
    """Seconds a client that leaves its Session block by an exception waits for the other
    clients to leave theirs before it ends the job: ECLUSE_EXCEPTION_WAIT, default 30."""
    try:
        return max(0.0, float(os.environ.get("ECLUSE_EXCEPTION_WAIT", "30")))
    except ValueError:
        return 30.0


def _abort_with(exc_type, exc, tb):
    """Prints the exception that leaves a Session block on this client alone, then ends the
    job (MPI_Abort): the other ranks cannot finish the collective finalize without it."""
    rank = MPI.COMM_WORLD.Get_rank()
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    sys.stderr.write(f"ecluse: world rank {rank}: an exception left the Session block while "
                     f"other clients are still in theirs; ending the job (MPI_Abort), since the "
                     f"collective finalize cannot complete without this rank:\n{text}")
    sys.stderr.flush()
    # The launcher forwards output asynchronously; MPICH's Hydra drops what it has not forwarded
    # when MPI_Abort tears the job down (seen: an empty stderr in 1 run of 4). Give it a moment.
    time.sleep(1.0)
    MPI.COMM_WORLD.Abort(1)


def _agree(comm, timeout=None):
    """True once every rank of `comm` reached this point (an Ibarrier), False if `timeout`
    seconds passed first."""
    request = comm.Ibarrier()
    deadline = None if timeout is None else time.monotonic() + timeout
    while not request.Test():
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


class Session:
    """One Ecluse session (ecluse_initialize ... ecluse_finalize) on the ranks of `comm`.

    `xml` is a configuration file's path, or the XML text itself when it starts with "<".
    Used as a context manager, leaving the block stops a client that did not stop, then
    finalizes (collective: every rank of `comm` must leave it)."""

    def __init__(self, xml, comm=None):
        comm = MPI.COMM_WORLD if comm is None else comm
        if not isinstance(comm, MPI.Comm):
            raise _argument_error(f"comm must be an mpi4py communicator (MPI.Comm), not "
                                  f"{type(comm).__name__}.")
        config = os.fspath(xml)
        if isinstance(config, bytes):
            config = os.fsdecode(config)
        _native.initialize(config, comm.py2f(), config.lstrip().startswith("<"))
        # Before start, an exception on one rank leaves the others in start's collectives: the
        # ranks agree on this duplicate that they all left their blocks, or that rank aborts.
        self._entry = comm.Dup()
        self._is_client = None
        self._entered = False  # called ecluse_start (which may have raised: a server's action)
        self._phase_done = False  # a client stopped, or a server's start returned
        self._stopped = self._finalized = self._agreed = False
        self._client_comm = None
        self._agreement = None
        self._views = {}
        self._kept = []  # weak references to retired views that the caller still held
        self._parameter_types = {}

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
            return False
        # An exception is on its way. Finalizing is collective: it completes if every client
        # leaves its block too (the same error everywhere, or the others done); a client that
        # left alone would wait there for ever, so after a bounded wait it says why and ends
        # the job, as `python -m mpi4py` would, instead of hanging until ECLUSE_TIMEOUT.
        if not self._entered and not self._finalized and not MPI.Is_finalized():
            if not _agree(self._entry, _exception_wait()):  # the others are in start
                _abort_with(exc_type, exc, tb)
            self._agreed = True
        if self._is_client and not self._finalized and not MPI.Is_finalized():
            try:
                if not self._stopped:
                    self.stop()
            except Error:
                pass
            if not self._clients_agree(_exception_wait()):
                _abort_with(exc_type, exc, tb)
            self._agreed = True
        try:
            self.close()
        except Error:
            pass
        return False

    def _clients_agree(self, timeout=None):
        """True once every client reached this point (a barrier on a communicator of the
        session's own), False if `timeout` seconds passed first."""
        return _agree(self._agreement, timeout)

    def start(self):
        """ecluse_start: True on simulation ranks; on server ranks runs the server loop and
        returns False when every client stopped. Called again after a client's stop (or after
        a server's start returned), it opens a new phase (Damaris's restart); otherwise it
        returns what the first call did."""
        if self._is_client is not None and not self._phase_done:
            return self._is_client
        first = self._is_client is None
        self._entered = True
        self._is_client = _native.start()
        self._phase_done = not self._is_client  # a server's phase ended when start returned
        self._stopped = False
        if first and self._is_client:  # a duplicate stays valid after close (Ecluse frees its own)
            self._client_comm = MPI.Comm.f2py(_native.client_comm()).Dup()
            self._agreement = self._client_comm.Dup()  # close's barrier, never the user's
        return self._is_client

    @property
    def is_client(self):
        """True on simulation ranks (starts Ecluse on first use; never opens a new phase)."""
        return self._is_client if self._is_client is not None else self.start()

    @property
    def client_comm(self):
        """The simulation ranks' communicator (an mpi4py Comm, a duplicate of Ecluse's that
        outlives the session), to use instead of `comm`; MPI.COMM_NULL on servers. Starts
        Ecluse on first use."""
        return self._client_comm if self.is_client else MPI.COMM_NULL

    def write(self, name, array, block=0):
        """Hands a copy of `array` (a NumPy array of the layout's dtype and C-order shape) over.
        An array that is not C-contiguous (a slice such as u[1:-1, 1:-1], a Fortran-ordered
        array) is packed by that same one copy, straight into Ecluse's buffer."""
        _native.write(_name("variable", name), array, block)

    def alloc(self, name, block=0):
        """A NumPy array that views room for the block in Ecluse's buffer (zero copy); fill it,
        then commit or clear in this iteration (a block not committed when the iteration ends is
        dropped). It becomes read-only at commit, clear, a new alloc of the block and the end of
        the iteration.

        Views derived from it (a[1:], a.reshape(...), a.T, np.asarray(a[::2])) are NOT made
        read-only then: NumPy cannot reach them from the view Ecluse hands out. They stay
        writable, and their writes after commit land in Ecluse's buffer: in the data on its way
        to be stored, or in room given to a later block. Fill the block through derived views
        if you like, but drop them (del, or let them go out of scope) before commit. When more
        than one reference to the view is left at that point, a derived view or a second name,
        Ecluse warns (ecluse.ViewWarning, naming the variable and block)."""
        view = _native.alloc(_name("variable", name), block)
        self._retire(name, block, "a new alloc")  # a previous view no longer owns the room
        self._views[(name, block)] = view
        return view

    def commit(self, name, block=0, iteration=None):
        """Hands the allocated block over; `iteration`, if given, must be the current one
        (ecluse_commit_block_iteration)."""
        _name("variable", name)
        if iteration is None:
            _native.commit(name, block)
        else:
            _native.commit_iteration(name, block, iteration)
        self._retire(name, block, "commit")

    def clear(self, name, block=0, iteration=None):
        """Gives the allocated block up; with `iteration`, an ended one is already cleared
        (ecluse_clear_block_iteration)."""
        _name("variable", name)
        if iteration is None:
            _native.clear(name, block)
        else:
            _native.clear_iteration(name, block, iteration)
            if iteration != _native.iteration():  # an ended one: the current view stays live
                return
        self._retire(name, block, "clear")

    @property
    def has_servers(self):
        """True when the run has dedicated cores or nodes (ecluse_has_servers)."""
        return _native.has_servers()

    def _retire(self, name, block, when):
        view = self._views.pop((name, block), None)
        if view is None:
            return
        view.setflags(write=False)
        held = sys.getrefcount(view) - 2  # beyond `view` and the call's argument: the caller's
        if held > 0:
            self._kept.append(weakref.ref(view))
            if len(self._kept) > 64:
                self._kept = [r for r in self._kept if r() is not None]
        if held > 1:
            _warn_held(name, block, when, held)

    def _keep_readable(self):
        """After finalize, a view the caller kept reads zeros (or stale bytes) where its memory
        was unmapped, instead of crashing the interpreter."""
        for ref in self._kept:
            view = ref()
            if view is not None:
                _native.keep_readable(view)
        self._kept = []

    def variable_shape(self, name):
        """(dtype, shape) of a block of `name` as write and alloc take it (C order)."""
        type_, dims = _native.variable_shape(_name("variable", name))
        return _DTYPES[type_], tuple(dims)

    def set_position(self, name, position, block=0):
        """Global offset of a block, one integer per dimension, in the layout's order."""
        try:
            values = [operator.index(p) for p in position]
        except TypeError:
            raise _argument_error(f"position of variable '{name}' must be a sequence of whole "
                                  f"numbers, got {position!r}.") from None
        _native.set_position(_name("variable", name), values, block)

    def parameter_get(self, name):
        """The parameter's value: int, float or str according to its type in the XML."""
        type_ = self._parameter_type(_name("parameter", name))
        if type_ == _STRING:
            return self._string_parameter(name)
        raw = _native.parameter_get(name, struct.calcsize(_FORMATS[type_]))
        return struct.unpack(_FORMATS[type_], raw)[0]

    def parameter_set(self, name, value):
        """Sets a parameter (layouts follow; a value that would break one is refused)."""
        _native.parameter_set(name, _encode(name, self._parameter_type(_name("parameter", name)), value))

    def signal(self, event):
        """Fires an event of <actions> (on the servers under DC/DN unless it is declared
        execution="local")."""
        _native.signal(_name("event", event))

    def bind(self, event, action):
        """Runs `action(event, source, iteration, args)` when `event` fires on this rank; bind
        before start for events that run on the servers."""
        _native.bind(_name("event", event), action)

    def end_iteration(self):
        """Ends the iteration: its blocks are handed over; blocks allocated and not committed
        are dropped and their views made read-only."""
        try:
            _native.end_iteration()
        finally:
            for name, block in list(self._views):
                self._retire(name, block, "the end of the iteration")
        if _insitu_runtime.take_interrupt():  # Ctrl-C in a <pyscript> run here (TP)
            raise KeyboardInterrupt

    @property
    def iteration(self):
        """The current iteration's number (from 0; end_iteration moves to the next)."""
        return _native.iteration()

    def statistic(self, name):
        """A transport or server counter of this rank (after stop or start, before close)."""
        return _native.statistic(_name("statistic", name))

    def stop(self):
        """A client's last call before close: no more writes."""
        _native.stop()
        self._stopped = self._phase_done = True

    def close(self):
        """Stops a client that did not stop, then finalizes (collective); idempotent."""
        if self._finalized:
            return
        # After MPI_Finalize no MPI call may be made: Ecluse's finalize says so and copes.
        mpi_alive = not MPI.Is_finalized()
        try:
            if mpi_alive and self._is_client and not self._stopped:
                self.stop()
        finally:
            if mpi_alive and not self._agreed:
                if self._is_client:      # the barrier of a client that leaves by an exception
                    self._clients_agree()
                elif not self._entered:  # a rank that never started: so does one that raised
                    _agree(self._entry)  # before start, which waits for it there
            for name in ("_agreement", "_entry"):
                if mpi_alive and getattr(self, name) is not None:
                    getattr(self, name).Free()
                setattr(self, name, None)
            self._finalized = True
            for name, block in list(self._views):
                self._retire(name, block, "close")
            try:
                _native.finalize()
            except Error as e:  # MPI_Finalize finalized Ecluse too, and said so on stderr
                if mpi_alive or e.status != "ECLUSE_NOT_INITIALIZED":
                    raise
            finally:
                self._keep_readable()

    def _parameter_type(self, name):
        if name not in self._parameter_types:
            self._parameter_types[name] = _native.parameter_type(name)
        return self._parameter_types[name]

    def _string_parameter(self, name):
        size = 256
        while True:
            try:
                raw = _native.parameter_get(name, size)
                return raw.split(b"\0", 1)[0].decode()
            except Error as e:
                if e.status != _ARGUMENT_ERROR or size > 1 << 24:
                    raise
                size *= 16




def _warn_held(name, block, when, held):
    """ViewWarning: the alloc view of a block handed over or given up is held more than once."""
    warnings.warn(
        f"alloc view of variable '{name}' block {block}: {held} references to it are left at "
        f"{when}; it is read-only now, but a view derived from it (a[1:], a.reshape(...)) is "
        f"not and still writes into Ecluse's buffer, into the data being stored or room "
        f"reused by a later block. Drop derived views (del) before {when}, or write through "
        f"the alloc view only.", ViewWarning, stacklevel=4)


def _encode(name, type_, value):
    """The bytes of `value` as a parameter of ecluse_type `type_`, or ecluse.Error."""
    if type_ == _STRING:
        if not isinstance(value, str):
            raise _argument_error(f"parameter '{name}' is of type string; give a str, "
                                  f"not {value!r}.")
        if "\0" in value:
            raise _argument_error(f"parameter '{name}': the string {value!r} holds a NUL "
                                  "character, where C strings end; remove it.")
        return value.encode()
    dtype = _DTYPES[type_]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        try:
            number = None if isinstance(value, bool) else operator.index(value)
        except TypeError:
            number = None
        if number is None or not info.min <= number <= info.max:
            raise _argument_error(f"parameter '{name}' is of type {_XML_TYPES[type_]}; give a "
                                  f"whole number from {info.min} to {info.max}, not {value!r}.")
        return struct.pack(_FORMATS[type_], number)
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise _argument_error(f"parameter '{name}' is of type {_XML_TYPES[type_]}; give a "
                              f"number, not {value!r}.")
    try:
        return struct.pack(_FORMATS[type_], float(value))
    except OverflowError:
        raise _argument_error(f"parameter '{name}' is of type {_XML_TYPES[type_]}: {value!r} is "
                              f"out of its range.") from None
