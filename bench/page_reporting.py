"""The benchmarks' command line of ecluse.page_reporting (python/ecluse/page_reporting.py: free
page reporting paused while they run), and its import for the harness from the source tree.

`page_reporting.py pause [WARM_GIB]` prints the order to give back to `page_reporting.py restore
ORDER` (`-` when nothing was changed), then a line saying what it did; `status` (bench/quiet.sh).
Needs only the Python standard library: the shell benchmarks run it with the system python3."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from ecluse.page_reporting import main, paused  # noqa: E402,F401  (paused: for the harness)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
