"""The last line of a run's summary: which approach the model predicts would have cost least for
this run, and by how much (docs/report.md, "The least-cost line"). `ecluse run -- <command>`
prints it once the command ended, for every report the command's runs wrote; the C++ library
does not hold a second copy of the model, so a run launched otherwise ends its summary with the
`ecluse advise --from-report` command that gives the same answer."""
from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from typing import Optional, Sequence

from . import advise as adv
from . import from_report
from .model import ModelOptions, candidate_approaches
from .power import Power
from .report import load as load_report
from .validate import _approach

PREFIX = "  least cost: "
REPORTS_VARIABLE = "ECLUSE_RUN_REPORTS"   # where rank 0 adds its report's path


def line(path: str, power: Power, options: ModelOptions, host_cpus: Optional[int] = None,
         max_dedicated_cores: int = 2) -> str:
    """The least-cost line of the run whose report is `path`; `not predicted: <reason>` when
    the model cannot use the report (whatever fails: the command's own exit code must stay)."""
    try:
        return PREFIX + _verdict(path, power, options, host_cpus, max_dedicated_cores)
    except (ValueError, OSError) as e:
        return PREFIX + f"not predicted: {e}"
    except Exception as e:  # noqa: BLE001  (a model failure must not hide the command's code)
        return PREFIX + f"not predicted: {path}: {type(e).__name__}: {e}"


def _verdict(path: str, power: Power, options: ModelOptions, host_cpus: Optional[int],
             max_dedicated_cores: int) -> str:
    """The least-energy approach among this run's own and the candidates of its platform,
    compared with this run's approach as the same model predicts it (the model's own bias
    cancels), then the run's measured energy; each energy with its source."""
    got = from_report.read(path, power, host_cpus)
    report = load_report(path)
    own = _approach(report)
    approaches = candidate_approaches(got.platform, max_dedicated_cores)
    if own not in approaches:
        approaches.append(own)
    preds = adv.predict_all(got.app, got.platform, got.workload, options, approaches)
    best = adv.advise(preds).least_energy
    mine = next(p for p in preds if p.approach == own)
    measured = report.energy.joules if report.energy else None
    unit = adv.energy_unit([p.energy_j for p in (best, mine)] + [measured or 0.0])
    model = f"power {power.id} [{power.source}]"
    tail = (f"; measured {adv.energy_text(measured, unit)} [{report.energy.label()}]"
            if measured else "")
    if best is mine:
        other = min((p for p in preds if p is not mine), key=lambda p: p.energy_j, default=None)
        if other is None:
            return f"this run's {mine.label}, the only candidate{tail}"
        more = (other.energy_j - mine.energy_j) / mine.energy_j
        return (f"this run's {mine.label} (model: {adv.energy_text(mine.energy_j, unit)}, "
                f"{model}; next best {other.label} {more:.1%} more{tail})")
    saving = (mine.energy_j - best.energy_j) / mine.energy_j
    return (f"{best.label}, {saving:.1%} less energy than this run's {mine.label} (model: "
            f"{adv.energy_text(best.energy_j, unit)} vs {adv.energy_text(mine.energy_j, unit)}, "
            f"{model}{tail})")


def run(command: Sequence[str], power: Power, options: ModelOptions,
        host_cpus: Optional[int] = None, max_dedicated_cores: int = 2) -> int:
    """Runs `command` (its output passes through), then prints the least-cost line of every
    report its runs wrote, in the order they were written; returns the command's exit code, or
    1 when it is 0 but a report says data was not stored (a program that never checks Ecluse's
    return codes, as Damaris programs often do, still ends 0)."""
    with tempfile.TemporaryDirectory(prefix="ecluse-run-") as tmp:
        listing = os.path.join(tmp, "reports")
        open(listing, "w").close()
        env = dict(os.environ, **{REPORTS_VARIABLE: listing})
        code = _run_command(command, env)
        lost, notes = [], []
        for path in _reports(listing):
            noted_failure = path.startswith(listing + ".initialize-failed.")
            if noted_failure and not os.path.exists(path):
                continue  # withdrawn: a later initialize of that process succeeded
            if path.startswith(listing + ".initialize-superseded."):
                notes += _superseded(path)
                continue
            if path.startswith(listing + ".unfinalized."):
                said, lost_here = _unfinalized(path)
                notes += [n for n in said if n not in notes]
                lost += lost_here
                continue
            if not noted_failure:  # a run that never initialized has nothing to model
                print(line(path, power, options, host_cpus, max_dedicated_cores), flush=True)
            # A report that could not go to its own path (ECLUSE_REPORT=none, a directory that
            # refused it) comes as a copy in this temporary directory, removed below.
            name = path
            if noted_failure:
                name = "the run"  # the library's note of a failed initialize
            elif path.startswith(listing + ".earlier."):
                name = _earlier_name(path)
            elif path.startswith(listing + "."):
                name = ("the run's report (not kept: ECLUSE_REPORT=none, or its file could not "
                        "be written)")
            lost += [f"{name}: {what}" for what in _not_stored(path)]
    for text in notes + lost:
        print(f"ecluse run: {text}", file=sys.stderr, flush=True)
    return 1 if code == 0 and lost else code


SUPERSEDED = "initialize failed, then a later initialize of this process succeeded: "


def _superseded(path: str) -> list:
    """The notes of failed initializes that a later initialize of the same process superseded
    (a program that retried, with another configuration or once another run's output lock was
    released): said, not counted as a loss."""
    try:
        report = load_report(path)
    except (OSError, ValueError) as e:
        return [f"warning: {path}: the note of a superseded initialize cannot be read ({e})"]
    counts = {}  # a program that waits for a lock fails the same way many times: said once
    for failure in report.data.get("failures") or []:
        cause = failure.get("cause", "") if isinstance(failure, dict) else ""
        if cause.startswith(SUPERSEDED):
            pid = (failure.get("seen_by") or {}).get("pid", "?")
            key = (pid, cause[len(SUPERSEDED):])
            counts[key] = counts.get(key, 0) + 1
    notes = []
    for (pid, message), times in counts.items():
        failed = "failed" if times == 1 else f"failed {times} times"
        failures = "failure is" if times == 1 else "failures are"
        notes.append(f"note: the run: Ecluse's initialize {failed}, then a later initialize of "
                     f"the same process (pid {pid}) succeeded, so the {failures} not counted: "
                     f"{message}")
    return notes


UNFINALIZED_LOSSES = "finalize was not called, so the run wrote no report; this process knew of "
UNFINALIZED_CLEAN = ("finalize was not called, so the run wrote no report; no loss was known to "
                     "this process")


def _unfinalized(path: str) -> tuple:
    """(notes, losses) of a process that the library released at MPI_Finalize without
    finalize: no report will say what was lost, so each process that knew of a loss says it
    (counted: ecluse run exits 1), and world rank 0 says that there is no report (a note)."""
    try:
        report = load_report(path)
    except (OSError, ValueError) as e:
        return [], [f"the run: it ended without finalize and its note cannot be read ({e})"]
    notes, lost = [], []
    for failure in report.data.get("failures") or []:
        cause = failure.get("cause", "") if isinstance(failure, dict) else ""
        seen = (failure.get("seen_by") or {}) if isinstance(failure, dict) else {}
        who = f"world rank {seen.get('world_rank', '?')}, pid {seen.get('pid', '?')}"
        if cause == UNFINALIZED_CLEAN:
            notes.append("note: the run called MPI_Finalize before ecluse_finalize "
                         "(damaris_finalize), so it wrote no report (no summary, no figures); "
                         "no process said it knew of data not stored. Call it before "
                         "MPI_Finalize to get the report")
        elif cause.startswith(UNFINALIZED_LOSSES):
            lost.append(f"the run ({who}) called MPI_Finalize before ecluse_finalize "
                        f"(damaris_finalize), so it wrote no report; that process knew of "
                        f"{cause[len(UNFINALIZED_LOSSES):]} (see the run's errors above)")
    return notes, lost


def _earlier_name(path: str) -> str:
    """How `ecluse run` names the copy of an earlier run's report that a later run of the
    same command replaced at its path (the library kept the copy at the later initialize)."""
    try:
        with open(path, encoding="utf-8") as f:
            simulation = json.load(f).get("simulation", "?")
    except (OSError, ValueError):
        simulation = "?"
    return (f"an earlier run of this command (simulation {simulation!r}; its report was "
            "replaced by a later run's and moved to <report>.previous)")


# Passed on to the command (a batch script's `kill -TERM`, Slurm's `--signal`).
_FORWARDED = ("SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGINT")
# A signal sent to the whole process group (Ctrl-C, Slurm at the time limit) reaches the
# launcher too: passed on only if the command still runs this long after, so that the launcher
# does not get it twice at once (Open MPI's mpirun takes a second one as "abort at once").
_FORWARD_AFTER_S = 2.0


def _run_command(command: Sequence[str], env: dict) -> int:
    """Runs the command to its end; its exit code, or 128 + N when signal N ended it (a
    shell's convention). Ctrl-C and the other signals of _FORWARDED do not end this process:
    they reach the command from the terminal or the batch system (its process group), or are
    passed on to it if it still runs _FORWARD_AFTER_S later; this process waits for the
    launcher to end its ranks rather than leaving them running."""
    process = subprocess.Popen(list(command), env=env)

    def forward(signum, _frame):
        def later():
            if process.poll() is None:
                try:
                    process.send_signal(signum)
                except ProcessLookupError:
                    pass
        timer = threading.Timer(_FORWARD_AFTER_S, later)
        timer.daemon = True
        timer.start()

    previous = {}
    try:
        for name in _FORWARDED:
            number = getattr(signal, name)
            previous[number] = signal.signal(number, forward)
    except ValueError:  # not the main thread: signals stay as they are
        pass
    try:
        code = process.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return 128 - code if code < 0 else code


def _not_stored(path: str) -> list:
    """What a report says was not stored or not done: failed stores, writes refused with an
    error, in-situ work that failed, an incomplete run."""
    try:
        report = load_report(path)
    except (OSError, ValueError) as e:  # moved away since, say: the command's code decides
        print(f"ecluse run: warning: {path}: the report cannot be read ({e}): whether its data "
              "was stored is not checked", file=sys.stderr, flush=True)
        return []
    said = []
    errors = report.iterations.store_errors or 0
    failed = report.iterations.failed_iterations.count or 0
    if errors or failed:
        said.append(f"{errors:g} store(s) failed in {failed:g} (rank, iteration) pair(s): what "
                    "they were to store is not on disk, all of it or a part (see the run's errors "
                    "above)")
    statistics = report.data.get("statistics") or {}
    refused = statistics.get("client.refused_writes") or 0
    if refused:
        said.append(f"{refused:g} write(s) refused with an error (client.refused_writes): that "
                    "data was not handed over (see the run's errors above)")
    insitu = statistics.get("insitu.failures") or 0
    if insitu:
        said.append(f"{insitu:g} run(s) of in-situ work failed (insitu.failures: <pyscript>s, "
                    "plugin and signal actions): their results are missing (see the run's "
                    "errors above)")
    causes = [f.get("cause", "") for f in report.data.get("failures") or []
              if isinstance(f, dict)]
    failed_initialize = [c for c in causes if c.startswith("initialize failed: ")]
    if failed_initialize:  # the library's note of a failed initialize (no run, no report)
        said.append(f"Ecluse's {failed_initialize[0]}: the program ran on without Ecluse, "
                    "which stored nothing of it")
    elif report.data.get("complete") is False:
        said.append("the run did not complete (a partial report): what its last iterations "
                    "held may not be stored")
    return said


def _reports(listing: str) -> list:
    """The reports' paths, each once (a run may be repeated in one command)."""
    with open(listing, encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_SH)   # the library's writers take the same lock
        paths = [p.strip() for p in f if p.strip()]
    return list(dict.fromkeys(paths))
