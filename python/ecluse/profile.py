"""`ecluse profile`: run a command without output on 1..N cores and 1..M (virtual) nodes, fit
s_cores, s_nodes and T_base, optionally measure write bandwidth per writer count, and write a
profile (schema `ecluse-profile/1`, docs/model.md)."""
from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from . import approach_runs as ar
from . import fit
from . import page_reporting
from .model import AppModel, ApproachTerms, Bandwidth, Scalability, buffer_bytes_for
from .calibration import watts_problem
from .power import Power
from .report import ReportLike, as_report
from .report import read as read_report

SCHEMA = "ecluse-profile/1"


def default_build() -> Path:
    """`$ECLUSE_BUILD`, else `build/` of the checkout this package sits in."""
    env = os.environ.get("ECLUSE_BUILD")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "build"


def default_proxy() -> Path:
    return default_build() / "apps" / "proxy" / "ecluse_proxy"


def default_command(output: bool = False) -> list:
    """The proxy on a fixed global grid ({local} is filled per rank count): strong scaling."""
    proxy = default_proxy()
    cmd = [str(proxy), "--config", str(proxy.parent / "proxy-tp.xml"),
           "--iterations", "{iterations}", "--local", "{local}"]
    return cmd + (["--output-every", "{output_every}"] if output else ["--compute-only"])


def mpiexec() -> str:
    return os.environ.get("ECLUSE_MPIEXEC") or "mpiexec.openmpi"


# Launchers a profiled command may start with (`ecluse profile -- mpiexec -n 4 ./app sim.xml`),
# and their options that take a value (two for the -x/-env families' NAME VALUE forms).
_LAUNCHERS = ("mpiexec", "mpirun", "srun", "orterun", "prterun")
_ONE_VALUE = {"-n", "-np", "--np", "-c", "-N", "--n", "--map-by", "--bind-to", "--rank-by",
              "-host", "--host", "-H", "--hostfile", "-hostfile", "--machinefile",
              "-machinefile", "-f", "-ppn", "--ppn", "-x", "--npernode", "-npernode",
              "--ntasks", "--ntasks-per-node", "-wdir", "--wdir", "-launcher", "-bootstrap",
              "--cpus-per-task", "--nodes", "-p", "--partition", "-t", "--time", "-A",
              "--account"}
_TWO_VALUES = {"--mca", "-mca", "-genv", "-env", "--gmca", "-gmca"}


def strip_launcher(command: Sequence[str]) -> tuple:
    """(program and its arguments, the launcher part removed): a command that starts with an
    MPI launcher has it removed with its options, since the profile launches every run itself
    with its own rank counts (`ECLUSE_MPIEXEC`). A command without one is returned as it is."""
    if not command or not os.path.basename(command[0]).split(".")[0] in _LAUNCHERS:
        return list(command), []
    i = 1
    while i < len(command) and command[i].startswith("-"):
        option = command[i].split("=", 1)[0]
        if "=" in command[i]:
            i += 1
        elif option in _TWO_VALUES:
            i += 3
        elif option in _ONE_VALUE:
            i += 2
        else:
            i += 1
    if i >= len(command):
        raise ValueError(f"'{' '.join(command)}': no program after the launcher's options")
    return list(command[i:]), list(command[:i])


def absolute_paths(command: Sequence[str]) -> list:
    """The command with every argument that names an existing file or directory relative to the
    current directory made absolute (also after `=` in `--opt=path`): the profile runs each
    command in a fresh temporary directory, where `./app sim.xml` would not be found. Paths
    inside the configuration (a `<pyscript file>`) are not rewritten: give them absolutely."""
    out = []
    for part in command:
        key, eq, value = part.rpartition("=") if part.startswith("-") else ("", "", part)
        if value and "{" not in value and not os.path.isabs(value) and os.path.exists(value):
            value = os.path.abspath(value)
        out.append(key + eq + value)
    return out


def failure_lines(stderr: str, most: int = 4) -> str:
    """What a failed run said, for the profile's error: its lines that name an error (each once:
    every rank prints the same), else its last lines, without the launcher's banners."""
    lines = [line.strip() for line in stderr.splitlines()
             if line.strip() and set(line.strip()) != {"-"}
             # Ecluse's info lines (the energy probe's "not found") and a backtrace (its
             # heading, frames and their source lines) name no error
             and not re.search(r"\] info: |^Backtrace for this error|^#\d+ |^at ",
                               line.strip())]
    named = list(dict.fromkeys(line for line in lines
                               if re.search(r"error|ECLUSE_|not found|unable|No such|^Executable:"
                                            r"|signal|Segmentation fault|exception", line,
                                            re.IGNORECASE)))
    chosen = named[:most] or lines[-most:] or ["no message"]
    return "\n  ".join(chosen)


def dims_create(n: int) -> tuple:
    """MPI_Dims_create(n, 2): the most balanced factor pair, larger first (as the proxy's grid)."""
    b = int(math.isqrt(n))
    while n % b:
        b -= 1
    return n // b, b


def local_for(global_grid: Sequence[int], ranks: int) -> tuple:
    """Per-rank block that keeps the global grid (rounded up when it does not divide)."""
    px, py = dims_create(ranks)
    return (math.ceil(global_grid[0] / px), math.ceil(global_grid[1] / py), global_grid[2])


def parse_grid(text: str) -> tuple:
    parts = tuple(int(p) for p in text.lower().split("x"))
    if len(parts) != 3 or min(parts) < 1:
        raise ValueError(f"grid '{text}' must be NXxNYxNZ with positive sizes")
    return parts


@dataclass
class ProfileSettings:
    """What to run. `command` may hold {ranks}, {local}, {iterations}, {output_every}."""

    command: list = field(default_factory=default_command)
    cores: tuple = (1, 2, 3, 4)
    nodes: tuple = (1, 2)
    ranks_per_node: int = 2
    iterations: int = 30
    global_grid: tuple = (128, 128, 40)
    repeats: int = 1
    writers: tuple = ()          # empty: no bandwidth measurement
    bandwidth_command: list = field(default_factory=lambda: default_command(output=True))
    output_every: int = 5
    timeout_s: float = 600.0
    keep: str = "median"         # of `repeats` runs per point: "median" or "fastest"
    cpus: int = field(default_factory=lambda: os.cpu_count() or 1)
    approaches: bool = False     # the approach runs: TP, DC(1), DN(1:1) with output
    config: Optional[str] = None  # the command's configuration file (default: its *.xml)
    long_every: Optional[int] = None  # the approach runs' second interval (4 x output_every)


@dataclass
class RunResult:
    kind: str
    cores: int
    nodes: int
    wall_time_s: float
    time_per_iteration_s: float
    summary: dict
    overhead_s: Optional[float] = None
    spread: Optional[float] = None   # (max - min) / median of the repeats; None for one run

    @property
    def ranks(self) -> int:
        return self.cores * self.nodes


def fill(command: Sequence[str], settings: ProfileSettings, ranks: int,
         output: bool = False, every: Optional[int] = None) -> list:
    """The command with its placeholders filled; {output_every} is 0 (no output) unless the
    run measures output (`output`: `every`, default the settings' interval)."""
    local = "x".join(str(v) for v in local_for(settings.global_grid, ranks))
    every = every or settings.output_every
    values = {"ranks": ranks, "local": local, "iterations": settings.iterations,
              "output_every": every if output else 0}
    return [part.format(**values) if "{" in part else part for part in command]


def run_env(ranks_per_node: int) -> dict:
    return dict(os.environ, ECLUSE_RANKS_PER_NODE=str(ranks_per_node), OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")


def last_json_line(text: str) -> Optional[dict]:
    """The last stdout line that is a JSON object (the proxy's summary)."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue
    return None


def exit_text(code: int) -> str:
    """A launcher's exit status as said to the user: 136 is a rank killed by SIGFPE (128 + 8,
    the launcher's convention), a negative status the launcher itself killed by a signal."""
    number = -code if code < 0 else code - 128 if 128 < code < 128 + 65 else None
    if number is None:
        return f"exit status {code}"
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"exit status {code}"
    who = "the launcher" if code < 0 else "a process"
    return f"exit status {code}: {who} killed by signal {number}, {name}"


def run_once(command: list, ranks: int, ranks_per_node: int, timeout_s: float,
             command_template: Optional[Sequence[str]] = None, output: bool = True) -> tuple:
    """Runs under mpiexec in a fresh directory (output, if any, lands there), with the run
    report (docs/report.md) sent to a file there; (summary, wall, report or None).
    `command_template` (the command before `fill`) and `output` only shape the error of a
    failed run."""
    argv = [mpiexec(), "--oversubscribe", "-n", str(ranks)] + command
    # No dirty pages of earlier runs pending: they would make the kernel throttle this run's
    # writes, so that its I/O time would depend on what ran before it.
    os.sync()
    with tempfile.TemporaryDirectory(prefix="ecluse-profile-") as cwd:
        report_path = os.path.join(cwd, "ecluse-profile-report.json")
        env = dict(run_env(ranks_per_node), ECLUSE_REPORT=report_path)
        start = time.monotonic()
        done = _run_within(argv, cwd, env, timeout_s)
        wall = time.monotonic() - start
        report = read_report(report_path)
    if done.returncode != 0:
        hint = ""
        if "{output_every}" in " ".join(command_template or ()) and not output:
            hint = ("\n  (this run measures compute only: its {output_every} was 0; a program "
                    "that divides by its output interval must take 0 as \"no output\")")
        raise RuntimeError(f"{' '.join(argv)} failed ({exit_text(done.returncode)}), run in a "
                           f"temporary directory:\n  "
                           f"{failure_lines(done.stderr + done.stdout)}{hint}")
    return last_json_line(done.stdout) or {}, wall, report


def _run_within(argv: list, cwd: str, env: dict, timeout_s: float):
    """subprocess.run of one profile run, in a process group of its own so that a run stopped
    (its timeout, Ctrl-C) leaves no rank behind holding its output open; RuntimeError saying
    so when it outlives `timeout_s`."""
    with subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except BaseException as e:
            out, err = _stop_group(proc)
            if not isinstance(e, subprocess.TimeoutExpired):
                raise
            said = err + out
            last = f"; its last output:\n  {failure_lines(said)}" if said.strip() else ""
            raise RuntimeError(f"{' '.join(argv)} did not end within {timeout_s:g} s "
                               "(--timeout) and was stopped: give a longer --timeout, or fewer "
                               f"--iterations{last}") from None
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _stop_group(proc: subprocess.Popen) -> tuple:
    """Ends a run's process group: SIGTERM first (mpiexec then ends the ranks it started in
    process groups of their own), SIGKILL after 5 s; (stdout, stderr) it wrote."""
    for sig, wait_s in ((signal.SIGTERM, 5.0), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            return proc.communicate(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
    return "", ""


def report_bytes_per_output(report: ReportLike) -> Optional[float]:
    """Mean bytes of the output iterations of a run report: what the clients handed over, ghost
    cells included, the figure `ecluse validate` reads back (None without a report)."""
    report = as_report(report)
    return report.bytes_per_output() if report else None


def report_overhead(report: ReportLike, summary: dict) -> Optional[float]:
    """Fixed time of a run outside its loop: the report's completion time (initialize to
    finalize) minus the program's own loop time (`wall_time_s`); for a program that prints no
    loop time, the clients' `setup` phase per client (docs/report.md); None without either."""
    report = as_report(report)
    if not report or report.completion_time_s is None:
        return None
    if "wall_time_s" in summary:
        return max(0.0, report.completion_time_s - float(summary["wall_time_s"]))
    sim = report.roles.get("simulation")
    setup = sim.phase_wall_s("setup") if sim else None
    return setup / sim.ranks if setup is not None and sim.ranks else None


def report_io_busy(report: ReportLike) -> Optional[float]:
    """CPU share of the clients while they store (TP's `store` phase: cpu_s / wall_s)."""
    report = as_report(report)
    return report.store_cpu_share() if report and report.approach == "tp" else None


def report_compute_per_iteration(report: ReportLike, summary: Optional[dict] = None
                                 ) -> Optional[float]:
    """Seconds per iteration of the clients' `compute` phase (mean client): for a program that
    writes whatever its {output_every} (an I/O kernel), whose wall time would hold the I/O, and
    for one that prints no loop time (`wall_time_s` in `summary`), whose process wall time
    would hold the launcher's start-up."""
    report, summary = as_report(report), summary or {}
    if not report or (not report.output_count() and "wall_time_s" in summary):
        return None
    sim = report.roles.get("simulation")
    compute = sim.phase_wall_s("compute") if sim else None
    iterations = report.iteration_count() or 0
    if not compute or not sim.ranks or iterations <= 0:
        return None
    return compute / sim.ranks / iterations


def report_copy_bytes_per_s(report: ReportLike, outputs: int) -> Optional[float]:
    """Bytes/s with which ONE client hands its share of an output over: the clients' `write`
    phase (docs/report.md; its wall time summed over the clients) is their copy into Ecluse's
    buffer, the same hand-over DC and DN clients make (TP's store is the `store` phase).
    Per client: (bytes per output / clients) / (write wall / clients / outputs)."""
    report = as_report(report)
    return report.copy_bytes_per_client_s(outputs) if report else None


def _pick(values: list, keep: str):
    """The kept one of several runs, by its first element: the median (the lower middle one
    for an even count) or the fastest."""
    ordered = sorted(values, key=lambda v: v[0])
    return ordered[0] if keep == "fastest" else ordered[(len(ordered) - 1) // 2]


def spread(values: Sequence[float]) -> Optional[float]:
    """Run-to-run spread of repeated measurements: (max - min) / median; None for one."""
    if len(values) < 2:
        return None
    return (max(values) - min(values)) / median(values)


def median(values: Sequence[float]) -> Optional[float]:
    """The median, None for no value."""
    return statistics.median(values) if len(values) else None


def time_per_iteration(summary: dict, wall: float, settings: ProfileSettings) -> float:
    """The command's own loop time when it prints one (wall_time_s), else the process's wall
    time; scaled to the requested global grid when the run reports a rounded-up one."""
    iterations = int(summary.get("iterations", settings.iterations)) or 1
    seconds = float(summary.get("wall_time_s", wall)) / iterations
    grid = summary.get("grid")
    if isinstance(grid, str) and grid.count("x") == 2:
        actual = math.prod(parse_grid(grid))
        seconds *= math.prod(settings.global_grid) / actual
    return seconds


def _plan(settings: ProfileSettings) -> list:
    runs = [("cores", c, 1) for c in settings.cores]
    runs += [("nodes", settings.ranks_per_node, m) for m in settings.nodes]
    return runs


def measure_scaling(settings: ProfileSettings, progress: Callable[[str], None]) -> list:
    """Runs every (cores, nodes) point `repeats` times and keeps the median run (`keep`
    "median", the default: runs with output are no less disturbed than the typical one) or the
    fastest (`keep` "fastest": least disturbed)."""
    plan = _plan(settings)
    results = []
    for i, (kind, cores, nodes) in enumerate(plan, start=1):
        ranks = cores * nodes
        tries = []
        for _ in range(max(1, settings.repeats)):
            summary, wall, report = run_once(fill(settings.command, settings, ranks), ranks,
                                             cores, settings.timeout_s, settings.command,
                                             output=False)
            t = (report_compute_per_iteration(report, summary)
                 or time_per_iteration(summary, wall, settings))
            tries.append((t, RunResult(kind, cores, nodes, wall, t, summary,
                                       report_overhead(report, summary))))
        best = _pick(tries, settings.keep)[1]
        best.spread = spread([t for t, _ in tries])
        over = " (oversubscribed)" if ranks > settings.cpus else ""
        progress(f"[{i}/{len(plan)}] {kind}: {cores} cores x {nodes} nodes = {ranks} ranks{over}: "
                 f"{best.time_per_iteration_s * 1e3:.2f} ms/iteration")
        results.append(best)
    return results


def measure_bandwidth(settings: ProfileSettings, progress: Callable[[str], None]) -> list:
    """TP with output on 1..N writers: bytes per output / slowest client's write time (with
    `repeats`, the run of median write time: the file system's variability is part of it).

    The bytes are those of the run report (what the clients hand over, ghost cells included),
    since `ecluse validate` predicts from the reports' bytes: with the program's own count
    (interior only) every predicted I/O time would be too long by the ghost share (3-5% for
    the proxy). Without a report, the program's `bytes_written` / `outputs`."""
    points = []
    for i, w in enumerate(settings.writers, start=1):
        runs = [_bandwidth_point(settings, w) for _ in range(max(1, settings.repeats))]
        runs.sort(key=lambda p: p["write_time_s"])
        point = dict(runs[(len(runs) - 1) // 2], repeats=len(runs))
        per_output, write_s = point["bytes_per_output"], point["write_time_s"]
        points.append(point)
        progress(f"[bandwidth {i}/{len(settings.writers)}] {w} writers: "
                 f"{per_output / write_s / 1e6:.1f} MB/s")
    for note in (small_output_note(median([p["bytes_per_output"] for p in points])),
                 growing_output_note(points)):
        if note:
            progress(note)
    return points


# Bytes per output that differ by more than this between writer counts: not one global problem.
GROWING_OUTPUT = 0.10


def growing_output_note(points: Sequence[dict]) -> Optional[str]:
    """A note when the output runs' bytes per output change with the number of writers (a
    program whose problem grows with its ranks: weak scaling), else None. The model takes one
    global problem on every resource count, and the profile the median of these sizes."""
    sized = sorted((p["writers"], p["bytes_per_output"]) for p in points
                   if p.get("bytes_per_output"))
    if len(sized) < 2:
        return None
    low, high = min(b for _, b in sized), max(b for _, b in sized)
    if high <= low * (1 + GROWING_OUTPUT):
        return None
    sizes = ", ".join(f"{b:.0f} on {w}" for w, b in sized)
    return (f"note: the output runs wrote different bytes per output by number of writers "
            f"({sizes}): the program's problem changes with its ranks (weak scaling?), while the "
            "model takes one global problem on every resource count and the profile keeps the "
            "median size. Keep the global problem fixed over the ranks (fill {local} in the "
            "command, or the program's own option), or profile on the rank count you will run.")


# Below this many bytes per output a write's time is mostly its fixed cost per file (create,
# metadata, close), which the model, proportional to the bytes, does not separate.
SMALL_OUTPUT_BYTES = 1 << 20


def small_output_note(per_output: Optional[float]) -> Optional[str]:
    """A note when the profile's outputs are too small to measure a bandwidth, else None."""
    if not per_output or per_output >= SMALL_OUTPUT_BYTES:
        return None
    return (f"note: the profile's output runs wrote {per_output:.0f} bytes per output: at that "
            "size a write's time is mostly its fixed cost per file, and the model takes I/O time as "
            "bytes / bandwidth, so it will predict runs that write more per output too slow. "
            "Profile with the output size of the runs to predict (their grid, their variables).")


def report_write_time(report: ReportLike) -> Optional[float]:
    """The slowest client's mean write time per output (TP: its store included)."""
    report = as_report(report)
    return (report.write_time_per_output() or None) if report else None


def _bandwidth_point(settings: ProfileSettings, w: int) -> dict:
    summary, _, report = run_once(fill(settings.bandwidth_command, settings, w, output=True), w,
                                  w, settings.timeout_s)
    rep = as_report(report)
    outputs = int(summary.get("outputs", 0)) or (rep.output_count() if rep else 0)
    write_s = float(summary.get("write_time_mean_s", 0.0)) or (report_write_time(report) or 0.0)
    if outputs == 0 or write_s <= 0:
        raise RuntimeError(f"bandwidth run on {w} writers measured no output time (neither its "
                           f"JSON line nor its run report): {summary}")
    reported = report_bytes_per_output(report)
    written = float(summary["bytes_written"]) / outputs if "bytes_written" in summary else reported
    per_output = reported or written
    return {"writers": w, "bytes_per_output": per_output, "bytes_written_per_output": written,
            "bytes_source": "report" if reported else "program", "write_time_s": write_s,
            "bytes_per_s": per_output / write_s,
            "copy_bytes_per_s": report_copy_bytes_per_s(report, outputs),
            "io_busy": report_io_busy(report),
            "overhead_s": report_overhead(report, summary)}


def measure_approaches(settings: ProfileSettings, bandwidth: list,
                       progress: Callable[[str], None]) -> dict:
    """The approach runs: the output command with one client under TP, DC(1) and DN(1:1), and
    with one client per CPU under TP (its configuration rewritten for each), at the output
    interval and at `long_every`, `repeats` times each; {key: [point, ...]}
    (approach_runs.point; key: ApproachRun.key)."""
    command = settings.bandwidth_command
    at = ar.config_index(command, settings.config)
    if at is None:
        raise ValueError("approach runs: no configuration file in the command (an argument "
                         "ending in .xml): name it with --xml PATH, or profile with "
                         "--no-approaches")
    with open(command[at], encoding="utf-8") as f:
        text = f.read()
    long_every = settings.long_every or min(4 * settings.output_every,
                                            max(settings.output_every, settings.iterations // 2))
    per_output = median([p["bytes_per_output"] for p in bandwidth]) or 0.0
    points: dict = {}
    # A command without {output_every} writes at its own interval: one interval to run.
    asks = any("{output_every}" in part for part in command)
    intervals = sorted({settings.output_every, long_every}) if asks else [settings.output_every]
    # Repeat by repeat, every approach and interval in turn (as the accuracy study's batches):
    # a drift of the machine's speed then touches every approach alike.
    runs = ar.approach_runs(settings.cpus)
    plan = [(rep, run, every) for rep in range(1, max(1, settings.repeats) + 1)
            for run in runs for every in intervals]
    with tempfile.TemporaryDirectory(prefix="ecluse-profile-configs-") as tmp:
        configs = {}
        for run in runs:
            configs[run.kind] = os.path.join(tmp, f"{run.kind}.xml")
            with open(configs[run.kind], "w", encoding="utf-8") as f:
                f.write(ar.approach_config(text, run.cores, run.nodes,
                                           max(buffer_bytes_for(per_output), 16 * ar.MIB),
                                           command[at]))
        for i, (rep, run, every) in enumerate(plan, start=1):
            argv = list(command)
            argv[at] = configs[run.kind]
            summary, _, report = run_once(
                fill(argv, settings, run.clients, output=True, every=every), run.ranks,
                run.ranks_per_node, settings.timeout_s)
            p = ar.point(run, report, summary, every)
            points.setdefault(run.key, []).append(p)
            clients = f" ({run.clients} clients)" if run.clients > 1 else ""
            progress(f"[approach {i}/{len(plan)}] {run.approach().label(run.platform(1).nodes)}"
                     f"{clients} every {p['output_every']}, repeat {rep}: "
                     f"{p['completion_s']:.3f} s")  # the run's own interval, from its report
    return points


def approach_terms(doc: dict, points: dict, cpus: int) -> dict:
    """{key: terms JSON with its points} from the approach runs' points (the fixed overhead
    of each needs the rest of the model: the profile's document so far)."""
    app = app_model(doc)
    out = {}
    for run in ar.approach_runs(cpus):
        if run.key in points:
            terms = ar.terms_for(run, points[run.key], app, cpus)
            out[run.key] = dict(terms.to_json(), points=points[run.key])
    return out


def build_profile(settings: ProfileSettings, runs: list, bandwidth: list, power: Power) -> dict:
    """The profile document (schema ecluse-profile/1)."""
    cores = [(r.cores, r.time_per_iteration_s) for r in runs if r.kind == "cores"]
    nodes = [(r.nodes, r.time_per_iteration_s) for r in runs if r.kind == "nodes"]
    fitted = fit.fit_profile(cores, nodes)
    max_ranks = max(r.ranks for r in runs)
    overheads = [r.overhead_s for r in runs if r.overhead_s is not None]
    overheads += [p["overhead_s"] for p in bandwidth if p.get("overhead_s") is not None]
    copies = [(p["writers"], p["copy_bytes_per_s"]) for p in bandwidth
              if p.get("copy_bytes_per_s")]
    return {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "cpus": settings.cpus,
        "max_ranks": max_ranks,
        "oversubscribed": max_ranks > settings.cpus,
        "virtual_nodes": True,
        "command": list(settings.command),
        "iterations": settings.iterations,
        "global_grid": "x".join(str(v) for v in settings.global_grid),
        "ranks_per_node": settings.ranks_per_node,
        "keep": settings.keep,
        "noise": max((r.spread for r in runs if r.spread is not None), default=None),
        "io_busy": median([p["io_busy"] for p in bandwidth if p.get("io_busy") is not None]),
        "runs": [_run_json(r) for r in runs],
        "fit": {"t_base_s": fitted["t_base_s"], "s_cores": fitted["s_cores"].to_json(),
                "s_nodes": fitted["s_nodes"].to_json(),
                "measured_s_cores": fit.measured_scalability(*zip(*cores)) if cores else {},
                "measured_s_nodes": fit.measured_scalability(*zip(*nodes)) if nodes else {}},
        "bandwidth": ({"writers": [p["writers"] for p in bandwidth],
                       "bytes_per_s": [p["bytes_per_s"] for p in bandwidth],
                       "points": bandwidth} if bandwidth else None),
        "copy": ({"clients": [w for w, _ in copies], "bytes_per_s": [b for _, b in copies],
                  "source": "bandwidth runs' write phase"} if copies else None),
        "overhead_s": ({"value": median(overheads), "runs": len(overheads),
                        "source": "median of completion_time_s - wall_time_s"}
                       if overheads else None),
        "power": power.to_json(),
    }


def _run_json(r: RunResult) -> dict:
    return {"kind": r.kind, "cores": r.cores, "nodes": r.nodes, "ranks": r.ranks,
            "wall_time_s": r.wall_time_s, "time_per_iteration_s": r.time_per_iteration_s,
            "overhead_s": r.overhead_s, "spread": r.spread}


def load_average() -> float:
    """1-minute load average (0 where unknown): other work running during a profile skews it."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def as_time_partitioning(settings: ProfileSettings, tmp: str) -> ProfileSettings:
    """The settings of the scaling and bandwidth runs, which measure the program without
    dedicated resources: when the command's configuration has dedicated cores or nodes, a copy
    set to time partitioning (written in `tmp`) takes its place (a DC file on 1 rank would
    leave no rank to the simulation)."""
    replaced = {}
    for name in ("command", "bandwidth_command"):
        command = list(getattr(settings, name))
        at = ar.config_index(command, settings.config)
        if at is None or not os.path.exists(command[at]):
            continue
        with open(command[at], encoding="utf-8") as f:
            text = f.read()
        if not ar.has_dedicated(text):
            continue
        path = os.path.join(tmp, f"tp-{name}.xml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(ar.approach_config(text, 0, 0, 0, command[at]))
        command[at] = path
        replaced[name] = command
    return dataclasses.replace(settings, **replaced) if replaced else settings


def run_profile(settings: ProfileSettings, power: Power,
                progress: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> dict:
    """Measures, fits and returns the profile document."""
    if not shutil.which(mpiexec()):
        raise RuntimeError(f"launcher '{mpiexec()}' not found (set ECLUSE_MPIEXEC)")
    max_ranks = max(list(settings.cores) + [settings.ranks_per_node * m for m in settings.nodes])
    if max_ranks > settings.cpus:
        progress(f"note: this machine has {settings.cpus} CPUs; runs above {settings.cpus} ranks are "
                 "oversubscribed (ranks share CPUs), and the fit describes that")
    reporting = page_reporting.note()
    if reporting:
        progress(reporting)
    load = load_average()
    if load > 0.5:
        progress(f"note: load average {load:.2f} before profiling: other processes share the CPUs "
                 "and will skew the times (use --repeats)")
    with tempfile.TemporaryDirectory(prefix="ecluse-profile-tp-") as tmp:
        tp = as_time_partitioning(settings, tmp)
        runs = measure_scaling(tp, progress)
        bandwidth = measure_bandwidth(tp, progress) if settings.writers else []
    points = measure_approaches(settings, bandwidth, progress) if settings.approaches else {}
    doc = build_profile(settings, runs, bandwidth, power)
    doc["load_average_before"] = load
    if points:
        doc["approaches"] = approach_terms(doc, points, settings.cpus)
    return doc


# ---------------------------------------------------------------------------------------------
# Reading a profile back


REMAKE = "make the profile again with ecluse profile"


def load_profile(path: str) -> dict:
    """Reads and checks a profile document: ValueError naming the file and the field that
    app_model or profile_power could not use."""
    with open(path, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise ValueError(f"{path}: not JSON ({e}): {REMAKE}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: holds a JSON {type(doc).__name__}, not a profile (a JSON "
                         f"object of schema '{SCHEMA}'): {REMAKE}")
    if doc.get("schema") != SCHEMA:
        found = doc.get("schema")
        what = f"schema is {found!r}" if found is not None else "has no 'schema' field"
        hint = ("; this is a run's report: give it as a report (validate REPORT..., advise "
                "--from-report REPORT) and a profile with --profile"
                if str(found).startswith("ecluse-report/") else f": {REMAKE}")
        raise ValueError(f"{path}: {what}, expected '{SCHEMA}'{hint}")
    _ProfileCheck(path, doc).check()
    return doc


class _ProfileCheck:
    """The fields of a profile the model reads, each checked for its type and range."""

    def __init__(self, path: str, doc: dict):
        self.path, self.doc = path, doc

    def fail(self, name: str, problem: str) -> ValueError:
        return ValueError(f"{self.path}: field '{name}' {problem}; {REMAKE}")

    def section(self, name: str, required: bool = True) -> Optional[dict]:
        value = self.doc.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, dict):
            raise self.fail(name, "is missing" if value is None else "is not an object")
        return value

    def number(self, data: dict, name: str, key: str, least: float = 0.0,
               above: bool = False, required: bool = True) -> None:
        value = data.get(key)
        if value is None and not required:
            return
        if value is None:
            raise self.fail(f"{name}.{key}", "is missing")
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
              and math.isfinite(value) and (value > least if above else value >= least))
        if not ok:
            bound = f"> {least:g}" if above else f">= {least:g}"
            raise self.fail(f"{name}.{key}", f"is {value!r}, expected a finite number {bound}")

    def curve(self, name: str, writers_key: str) -> None:
        """A bandwidth-like section: writer counts and bytes/s, as many of each."""
        data = self.section(name, required=False)
        if data is None or not data.get(writers_key):
            return
        counts, rates = data.get(writers_key), data.get("bytes_per_s")
        if not isinstance(counts, list):
            raise self.fail(f"{name}.{writers_key}", "is not a list of counts")
        if not isinstance(rates, list) or len(rates) != len(counts):
            raise self.fail(f"{name}.bytes_per_s", f"does not give one figure per entry of "
                            f"'{name}.{writers_key}'")
        for i, _ in enumerate(counts):
            self.number(dict(enumerate(counts)), f"{name}.{writers_key}", i, 1)
            self.number(dict(enumerate(rates)), f"{name}.bytes_per_s", i, above=True)

    def check(self) -> None:
        fitted = self.section("fit")
        self.number(fitted, "fit", "t_base_s", above=True)
        for curve in ("s_cores", "s_nodes"):
            data = fitted.get(curve)
            if not isinstance(data, dict):
                raise self.fail(f"fit.{curve}", "is missing")
            for key in ("serial", "parallel", "log"):
                self.number(data, f"fit.{curve}", key, least=-math.inf)
        self.curve("bandwidth", "writers")
        self.curve("copy", "clients")
        overhead = self.section("overhead_s", required=False)
        if overhead is not None:
            self.number(overhead, "overhead_s", "value", required=False)
        self.power()
        self.approaches()

    def power(self) -> None:
        power = self.section("power", required=False)
        if not power:
            return
        for key in ("idle_watts", "max_watts"):
            self.number(power, "power", key)
        problem = watts_problem(power["idle_watts"], power["max_watts"],
                                ("power.idle_watts", "power.max_watts"))
        if problem:
            raise ValueError(f"{self.path}: {problem}; {REMAKE}")

    def approaches(self) -> None:
        """The approach runs' terms: every figure given is a finite number (bandwidths > 0)."""
        for kind, terms in (self.section("approaches", required=False) or {}).items():
            name = f"approaches.{kind}"
            if not isinstance(terms, dict):
                raise self.fail(name, "is not an object")
            for key in ("compute_factor", "per_output_s", "bytes_per_client", "overhead_s",
                        "io_busy", "idle_fraction", "runs", "residual"):
                self.number(terms, name, key, least=-math.inf, required=False)
            for key in ("store_bytes_per_s", "copy_bytes_per_s"):
                self.number(terms, name, key, above=True, required=False)
            self.number(terms, name, "store_writers", least=1, required=False)


def app_model(doc: dict) -> AppModel:
    """The fitted application model of a profile document."""
    f = doc["fit"]
    copy = doc.get("copy")
    overhead = (doc.get("overhead_s") or {}).get("value")
    return AppModel(float(f["t_base_s"]), Scalability.from_json(f["s_cores"]),
                    Scalability.from_json(f["s_nodes"]), Bandwidth.from_json(doc.get("bandwidth")),
                    Bandwidth.from_json({"writers": copy["clients"],
                                         "bytes_per_s": copy["bytes_per_s"]}) if copy else None,
                    float(overhead or 0.0), doc.get("noise"), doc.get("io_busy"),
                    tuple(sorted((kind, ApproachTerms.from_json(t))
                                 for kind, t in (doc.get("approaches") or {}).items())))


def profile_bytes_per_output(doc: Optional[dict]) -> Optional[float]:
    """Bytes per output the profile's output runs measured (median), None without them."""
    points = ((doc or {}).get("bandwidth") or {}).get("points") or []
    return median([p["bytes_per_output"] for p in points if p.get("bytes_per_output")])


def profile_power(doc: dict) -> Power:
    return Power.from_json(doc.get("power"))
