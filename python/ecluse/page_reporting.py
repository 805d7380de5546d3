"""Free page reporting (virtio-balloon) paused while benchmarks run.

On a virtual machine whose balloon device reports free pages (VIRTIO_BALLOON_F_REPORTING; this
CI VM does), the guest kernel hands memory that stayed free for about 2 s back to the host. The
next run that allocates it (page cache for its output files, the shared buffer, the message
memory) faults it in again on the host: measured here, the proxy's TP write into the page cache
took 130-145 ms per output after a pause of 1-5 s against 25-35 ms back to back, 4-5x. A
benchmark that waits for a quiet machine between runs (bench/quiet.sh, the harness) pays this
before every run, by an amount that depends on the pause: run-to-run noise that no change of
Ecluse moves.

`paused()` raises the reporting order above the largest block order (/proc/buddyinfo), which
stops reporting, touches `warm_gib` of memory once so that what was already given back is
backed again, and restores the old order at the end. Nothing is changed when the parameter is
absent (no such balloon: bare metal, most clusters), not writable (not root), or when
ECLUSE_BENCH_PAGE_REPORTING=keep. Every result says which (`describe`).

`note()` is what `ecluse profile` prints when the reporting is active. The benchmarks' command
line is bench/page_reporting.py (`main` below).
"""
import contextlib
import os
import sys
import time

PARAMETER = "/sys/module/page_reporting/parameters/page_reporting_order"
BUDDYINFO = "/proc/buddyinfo"
DEFAULT_WARM_GIB = 3.0


def _read(path):
    with open(path) as f:
        return f.read().strip()


def disabled_order(buddyinfo=None):
    """One above the largest block order the kernel has: no free block reaches it."""
    with open(buddyinfo or BUDDYINFO) as f:
        first = f.readline().split()
    # "Node 0, zone DMA 1 0 ... 3": the counts after the zone name, one per order.
    return len(first) - 4


def reporting_order(parameter=None):
    """The current page_reporting_order, or None without the parameter."""
    try:
        return int(_read(parameter or PARAMETER))
    except (OSError, ValueError):
        return None


def status(parameter=None):
    """"absent", "kept (ECLUSE_BENCH_PAGE_REPORTING=keep)", "not writable" or "active"."""
    parameter = parameter or PARAMETER
    if not os.path.exists(parameter):
        return "absent"
    if os.environ.get("ECLUSE_BENCH_PAGE_REPORTING") == "keep":
        return "kept (ECLUSE_BENCH_PAGE_REPORTING=keep)"
    if not os.access(parameter, os.W_OK):
        return "not writable"
    return "active"


def warm(gib):
    """Touches `gib` GiB of fresh memory once, then frees it: the host backs it again, and with
    reporting paused it stays backed for the runs that follow. Returns the seconds it took."""
    start = time.monotonic()
    block = bytearray(b"\x01") * int(gib * (1 << 30))
    del block
    return time.monotonic() - start


def pause(warm_gib=DEFAULT_WARM_GIB, parameter=None, buddyinfo=None):
    """Stops reporting when it can; returns (the order to restore or None, what was done)."""
    parameter = parameter or PARAMETER
    state = status(parameter)
    if state != "active":
        return None, f"free page reporting {state}: nothing changed"
    old = _read(parameter)
    new = disabled_order(buddyinfo)
    if int(old) >= new:
        return None, f"free page reporting paused already (page_reporting_order {old})"
    with open(parameter, "w") as f:
        f.write(str(new))
    seconds = warm(warm_gib) if warm_gib > 0 else 0.0
    return old, (f"free page reporting paused for the benchmark (page_reporting_order {old} -> "
                 f"{new}; {warm_gib:g} GiB touched once in {seconds:.1f} s), restored at the end")


def restore(old, parameter=None):
    if old is None:
        return
    with open(parameter or PARAMETER, "w") as f:
        f.write(str(old))


def note(parameter=None, buddyinfo=None):
    """A note when reporting is active (a run after a pause then faults its memory in again, and
    times vary with the pauses between runs), with how to stop it; else ""."""
    parameter = parameter or PARAMETER
    order = reporting_order(parameter)
    try:
        orders = disabled_order(buddyinfo)
    except OSError:
        return ""
    if order is None or order >= orders:
        return ""
    return (f"note: this machine gives memory free for about 2 s back to its host (free page "
            f"reporting, page_reporting_order {order}): a run after a pause faults it in again, "
            f"so times vary with the pauses between runs; as root, write {orders} to "
            f"{parameter} while profiling and running (then {order} again) for steadier times")


@contextlib.contextmanager
def paused(warm_gib=DEFAULT_WARM_GIB, parameter=None, buddyinfo=None):
    """Runs the body with reporting paused (when it can be); yields the description."""
    old, what = pause(warm_gib, parameter, buddyinfo)
    try:
        yield what
    finally:
        restore(old, parameter)


def main(argv):
    """bench/page_reporting.py's command line."""
    if argv[:1] == ["pause"] and len(argv) <= 2:
        old, what = pause(float(argv[1]) if len(argv) == 2 else DEFAULT_WARM_GIB)
        print("-" if old is None else old)
        print(what)
        return 0
    if argv[:1] == ["restore"] and len(argv) == 2:
        restore(None if argv[1] == "-" else argv[1])
        return 0
    if argv == ["status"]:
        print(status())
        return 0
    print("usage: page_reporting.py pause [WARM_GIB] | restore ORDER|- | status", file=sys.stderr)
    return 2
