"""Are profile runs slower than validated runs by construction? Runs VPIC-IO (TP, 1 rank, 200
steps of 8 MB) alternately the way bench/accuracy/run_accuracy.sh runs a configuration (A:
`mpiexec -n 1` in a fresh directory after a sync) and the way `ecluse profile` does (B:
ecluse.profile.run_once), and prints each run's completion, write and store time per output.

    python3 bench/accuracy/launch_paths.py [PAIRS]     (a built tree: build/apps/kernels)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
from ecluse.profile import run_once  # noqa: E402
from ecluse.report import as_report  # noqa: E402

KERNELS = os.path.join(ROOT, "build", "apps", "kernels")


def accuracy_style(command, scratch, i):
    """As run_accuracy.sh's run_one: a fresh directory, a sync, the report to a file."""
    run = os.path.join(scratch, "run")
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run)
    os.sync()
    report = os.path.join(scratch, f"a{i}.json")
    env = dict(os.environ, ECLUSE_REPORT=report, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    launcher = os.environ.get("ECLUSE_MPIEXEC", "mpiexec.openmpi")
    subprocess.run([launcher, "-n", "1"] + command, cwd=run, env=env, capture_output=True,
                   check=True)
    shutil.rmtree(run)
    with open(report) as f:
        return as_report(json.load(f))


def profile_style(command, scratch, i):
    """As `ecluse profile`'s runs."""
    _, _, report = run_once(command, 1, 1, 300)
    return as_report(report)


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    scratch = tempfile.mkdtemp(prefix="ecluse-launch-paths-")
    try:
        config = os.path.join(scratch, "tp.xml")
        shutil.copy(os.path.join(KERNELS, "vpic-io-tp.xml"), config)
        command = [os.path.join(KERNELS, "ecluse_vpic_io"), "--config", config,
                   "--particles", "262144", "--steps", "200"]
        for i in range(pairs):
            for name, run in (("A", accuracy_style), ("B", profile_style)):
                r = run(command, scratch, i)
                print(f"{name} {i} completion {r.completion_time_s:.3f} s, write/output "
                      f"{1e3 * r.write_time_per_output():.2f} ms, store/output "
                      f"{1e3 * r.store_time_per_output():.2f} ms", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
