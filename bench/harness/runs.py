"""One run of the harness: the command of a workload under an approach, launched with mpiexec
in its own temporary working directory, and the figures taken from what it leaves behind (its
JSON summary line, the Ecluse run report when there is one, the files it wrote)."""
import dataclasses
import json
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from adios2_baseline import dims_create  # the process grid MPI_Dims_create makes

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))  # the package's run report reader
from ecluse.report import read_document  # noqa: E402
HERE = pathlib.Path(__file__).resolve().parent
PROXY_FIELDS = ["temperature", "pressure", "u", "v", "w", "qv"]

# Approaches: Ecluse through the apps' XML configurations, and the baselines without Ecluse.
APPROACHES = {
    "ecluse-tp": {"kind": "ecluse", "config": "tp", "label": "Ecluse TP",
                  "notes": "time partitioning: every rank computes and writes"},
    "ecluse-dc": {"kind": "ecluse", "config": "dc", "label": "Ecluse DC",
                  "notes": "one dedicated core (the last rank of the node) writes"},
    "ecluse-dn": {"kind": "ecluse", "config": "dn", "label": "Ecluse DN",
                  "notes": "virtual nodes of 2 ranks, one of them dedicated"},
    "ecluse-dn-1": {"kind": "ecluse", "config": "dn", "ranks_per_node": 1, "label": "Ecluse DN",
                    "notes": "virtual nodes of 1 rank (ECLUSE_RANKS_PER_NODE=1), one of them "
                             "dedicated: at most 2 busy processes with 2 ranks"},
    "hdf5-fpp": {"kind": "hdf5", "label": "HDF5 file per process",
                 "notes": "apps/baselines: one HDF5 file per rank and output, no Ecluse"},
    "hdf5-collective": {"kind": "hdf5", "label": "HDF5 collective",
                        "notes": "apps/baselines: one shared file per output, MPI-IO "
                                 "collective writes, no Ecluse"},
    "adios2-bp5-sync": {"kind": "adios2", "asynchronous": False, "label": "ADIOS2 BP5",
                        "notes": "PyPI wheel (serial, no MPI, no compressors): one BP5 file "
                                 "per rank, VORPAL-IO data only; AsyncWrite Off"},
    "adios2-bp5-async": {"kind": "adios2", "asynchronous": True, "label": "ADIOS2 BP5 async",
                         "notes": "PyPI wheel (serial, no MPI, no compressors): one BP5 file "
                                  "per rank, VORPAL-IO data only; AsyncWrite On"},
}

# Where each workload's programs and configurations are, in the build directory.
WORKLOADS = {
    "proxy": {"folder": "proxy", "binary": "ecluse_proxy", "baseline": "baseline_proxy",
              "config": "proxy"},
    "vorpal-io": {"folder": "kernels", "binary": "ecluse_vorpal_io",
                  "baseline": "baseline_vorpal_io", "config": "vorpal-io"},
    "vpic-io": {"folder": "kernels", "binary": "ecluse_vpic_io", "baseline": "baseline_vpic_io",
                "config": "vpic-io"},
}


@dataclasses.dataclass
class Spec:
    """One configuration of the matrix: a workload, its parameters, an approach, the ranks."""
    workload: str
    parameters: dict
    approach: str
    ranks: int

    def key(self):
        """Identifies the configuration (repetitions share it)."""
        params = ",".join(f"{k}={v}" for k, v in sorted(self.parameters.items()))
        return f"{self.workload}/{self.approach}/r{self.ranks}/{params}"

    def describe(self):
        params = " ".join(f"{k}={v}" for k, v in self.parameters.items())
        return f"{self.workload} {self.approach} ranks={self.ranks} {params}"


@dataclasses.dataclass
class Environment:
    """What launches the runs: the build directory, mpiexec, the Python that has adios2."""
    build: pathlib.Path
    mpiexec: str
    adios2_python: str
    timeout_s: float = 600.0
    keep_runs: bool = False

    @staticmethod
    def from_os():
        build = pathlib.Path(os.environ.get("ECLUSE_BUILD", "build"))
        if not build.is_absolute():
            build = (ROOT / build) if not build.exists() else build.resolve()
        venv_python = ROOT / ".venv" / "bin" / "python"
        return Environment(
            build=build, mpiexec=os.environ.get("ECLUSE_MPIEXEC", "mpiexec.openmpi"),
            adios2_python=os.environ.get("ECLUSE_ADIOS2_PYTHON", str(venv_python)))


def clients_of(approach, ranks):
    """The simulation's ranks: DC gives one rank of the node to Ecluse, DN a node of 2 (of 1
    for ecluse-dn-1)."""
    if approach in ("ecluse-dc", "ecluse-dn-1"):
        return ranks - 1
    if approach == "ecluse-dn":
        return ranks - 2
    return ranks


def why_not(spec):
    """The reason a configuration cannot run, or None."""
    kind = APPROACHES[spec.approach]["kind"]
    if kind == "adios2" and spec.workload != "vorpal-io":
        return "the ADIOS2 baseline writes the VORPAL-IO data only"
    if spec.approach == "ecluse-dn" and (spec.ranks < 4 or spec.ranks % 2):
        return "DN needs an even number of ranks >= 4 (virtual nodes of 2, one of them dedicated)"
    if spec.approach in ("ecluse-dc", "ecluse-dn-1") and spec.ranks < 2:
        return "DC and DN on nodes of 1 rank need 2 ranks or more"
    return None


def local_of(global_grid, clients):
    """The proxy's per-rank block that keeps `global_grid` (NXxNYxNZ) on `clients` ranks, on
    the process grid MPI_Dims_create makes (x first), so TP, DC and DN solve one problem."""
    nx, ny, nz = (int(n) for n in global_grid.split("x"))
    px, py = dims_create(clients, 2)
    if nx % px or ny % py:
        raise ValueError(f"global grid {global_grid} does not split over a {px}x{py} process "
                         f"grid ({clients} clients)")
    return f"{nx // px}x{ny // py}x{nz}"


def workload_arguments(workload, parameters, clients=1):
    """Command-line options of the apps and baselines for a workload's parameters; a proxy case
    with "global" instead of "local" keeps the whole problem whatever the number of clients."""
    p = parameters
    if workload == "proxy":
        local = local_of(p["global"], clients) if "global" in p else p["local"]
        return ["--local", local, "--iterations", str(p["iterations"]),
                "--output-every", str(p["output_every"]),
                "--variables", ",".join(PROXY_FIELDS[:p["variables"]])]
    if workload == "vorpal-io":
        return ["--block", p["block"], "--steps", str(p["steps"])]
    return ["--particles", str(p["particles"]), "--steps", str(p["steps"])]


def program(env, spec):
    """The command (after mpiexec and its options) and the configuration file to copy."""
    info, approach = WORKLOADS[spec.workload], APPROACHES[spec.approach]
    arguments = workload_arguments(spec.workload, spec.parameters,
                                   clients_of(spec.approach, spec.ranks))
    if approach["kind"] == "ecluse":
        folder = env.build / "apps" / info["folder"]
        config = folder / f"{info['config']}-{approach['config']}.xml"
        return [str(folder / info["binary"]), "--config", config.name, *arguments], config
    if approach["kind"] == "hdf5":
        binary = env.build / "apps" / "baselines" / info["baseline"]
        return [str(binary), "--approach", spec.approach, *arguments], None
    script = HERE / "adios2_baseline.py"
    mode = "on" if approach["asynchronous"] else "off"
    return [env.adios2_python, str(script), "--async", mode, *arguments], None


def command_of(env, spec):
    tail, config = program(env, spec)
    return [env.mpiexec, "--oversubscribe", "-n", str(spec.ranks), *tail], config


def launch_environment(run_dir, kind, ranks_per_node=None):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    if kind == "ecluse":
        env["ECLUSE_REPORT"] = str(run_dir / "ecluse-report.json")
    if ranks_per_node is not None:   # overrides the configuration's <virtual-nodes>
        env["ECLUSE_RANKS_PER_NODE"] = str(ranks_per_node)
    return env


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def execute(command, cwd, env, timeout_s):
    """Runs the job in its own process group, so that a timeout ends all of it (and only it).
    Returns (returncode or None on timeout, stdout, stderr, elapsed s, CPU s of the job)."""
    cpu_before, start = children_cpu_seconds(), time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout_s)
        code = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        code = None
    elapsed = time.perf_counter() - start
    return code, out, err, elapsed, children_cpu_seconds() - cpu_before


def summary_line(stdout):
    """The last JSON object the program printed with an `app` field, or None."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            try:
                parsed = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(parsed, dict) and "app" in parsed:
                return parsed
    return None


def read_report(run_dir):
    """The Ecluse run report (docs/report.md) as parsed JSON, kept whole in the record: the
    file ECLUSE_REPORT named, else the default `{simulation}-report.json` in the working
    directory; None when the run wrote none."""
    candidates = [run_dir / "ecluse-report.json", *sorted(run_dir.glob("*-report.json"))]
    path = next((p for p in candidates if p.is_file()), None)
    return read_document(str(path)) if path else None


def bytes_on_disk(run_dir):
    out = run_dir / "out"
    return sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) if out.exists() else 0


def tail(text, limit=1500):
    return text if len(text) <= limit else "..." + text[-limit:]


def failure(code, stderr, stdout):
    if code is None:
        return "timed out"
    if code != 0:
        return f"exit code {code}: {tail(stderr or stdout)}"
    return f"no JSON summary line in the output: {tail(stdout)}"


def run_one(env, spec, repetition, work_root, metrics_of):
    """Runs one configuration once in a fresh directory under work_root; returns its record."""
    command, config = command_of(env, spec)
    run_dir = pathlib.Path(tempfile.mkdtemp(prefix="run-", dir=work_root))
    try:
        if config is not None:
            shutil.copy(config, run_dir / config.name)
        kind = APPROACHES[spec.approach]["kind"]
        launch = launch_environment(run_dir, kind, APPROACHES[spec.approach].get("ranks_per_node"))
        code, out, err, elapsed, cpu = execute(command, run_dir, launch, env.timeout_s)
        summary = summary_line(out) if code == 0 else None
        report = read_report(run_dir) if kind == "ecluse" else None
        record = base_record(spec, repetition, command, summary, report)
        if summary is None:
            record.update(status="failed", error=failure(code, err, out))
        else:
            record["metrics"] = metrics_of(spec, summary, report, elapsed, cpu,
                                           bytes_on_disk(run_dir))
        return record
    finally:
        if not env.keep_runs:
            shutil.rmtree(run_dir, ignore_errors=True)


def base_record(spec, repetition, command, summary, report):
    clients = summary.get("ranks") if summary else clients_of(spec.approach, spec.ranks)
    return {
        "id": f"{spec.key()}#{repetition}", "workload": spec.workload,
        "approach": spec.approach, "ranks": spec.ranks, "clients": clients,
        "oversubscribed": spec.ranks > (os.cpu_count() or 1),
        "parameters": dict(spec.parameters), "repetition": repetition, "status": "ok",
        "error": None, "command": command, "summary": summary, "report": report,
        "metrics": None,
    }


def adios2_availability(python):
    """(True, None) when `python` can import the adios2 wheel, else (False, reason)."""
    probe = "import adios2, numpy; print(adios2.__version__)"
    try:
        result = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"cannot run {python}: {e}"
    if result.returncode == 0:
        return True, None
    last = (result.stderr.strip().splitlines() or ["no message"])[-1]
    return False, (f"adios2 cannot be imported by {python} ({last}); install the wheel in a "
                   "separate venv (pip install adios2 numpy) and set ECLUSE_ADIOS2_PYTHON to "
                   "its python")


def availability(env, approach):
    """(available, reason) of an approach with this build directory and this machine."""
    kind = APPROACHES[approach]["kind"]
    if kind == "adios2":
        return adios2_availability(env.adios2_python)
    apps = env.build / "apps"
    if kind == "ecluse":
        needed = [apps / w["folder"] / w["binary"] for w in WORKLOADS.values()]
    else:
        needed = [apps / "baselines" / w["baseline"] for w in WORKLOADS.values()]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        return False, f"not built: {', '.join(missing)} (set ECLUSE_BUILD to a build directory)"
    return True, None
