"""`ecluse advise --from-report run.json`: the model's inputs taken from one real run's report
(docs/report.md), no extra runs. Each input says where it comes from (measured or assumed)."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Optional

from .model import AppModel, ApproachTerms, Bandwidth, Platform, Scalability, Workload
from .power import Power
from .profile import SMALL_OUTPUT_BYTES
from .report import Report
from .report import load as load_report
from .validate import (_approach, _count, _field_error, _io_seconds, _platform, _seconds,
                       _workload)


@dataclass(frozen=True)
class ReportInputs:
    app: AppModel
    platform: Platform
    workload: Workload
    sources: tuple          # (input, value text, "measured" | "assumed" | ...), in print order
    domains: int = 1        # blocks per client, for the <architecture> block
    notes: tuple = ()       # what the reader should know about these inputs


def _role_phase(report: Report, role: str, phase: str) -> Optional[float]:
    r = report.roles.get(role)
    return r.phase_wall_s(phase) if r else None


def _writers(report: Report) -> int:
    """Who writes the outputs, whose time per output the report gives (`_io_seconds`): TP's
    clients (their visible write time, stores included), DC/DN's servers (their store)."""
    if report.approach == "tp":
        writers = report.roles["simulation"].ranks if "simulation" in report.roles else 1
    else:
        server = report.server_role()
        writers = server.ranks if server and server.ranks else 1
    return int(writers or 1)


def _copy(report: Report) -> Optional[Bandwidth]:
    """DC/DN: the clients' write phase is their hand-over into Ecluse's buffer."""
    per_client = report.copy_bytes_per_client_s() if report.approach != "tp" else None
    if per_client is None:
        return None
    _seconds(report, "roles.simulation.phases.write.wall_s",
             _role_phase(report, "simulation", "write"))
    return Bandwidth((int(report.roles["simulation"].ranks),), (per_client,))


def _compute(report: Report) -> tuple:
    """(the simulation role, its compute phase's seconds summed over its clients)."""
    sim = report.roles.get("simulation")
    compute = _seconds(report, "roles.simulation.phases.compute.wall_s",
                       _role_phase(report, "simulation", "compute"))
    if sim and compute and not sim.ranks:
        raise _field_error(report, "roles.simulation.ranks", "a whole number >= 1")
    if not sim or not sim.ranks or not compute:
        raise ValueError(f"{report.path}: no compute phase of the simulation role: cannot measure "
                         "the compute time per iteration")
    return sim, compute


def _output(report: Report, workload: Workload) -> tuple:
    """(bytes per output, seconds per output, writers); None, None when the run wrote nothing."""
    writers, io_s = _writers(report), _io_seconds(report) or None
    total = report.iterations.client_bytes.sum
    if total is not None and not (math.isfinite(total) and total >= 0):
        raise _field_error(report, "iterations.client_bytes.sum", "a finite number of bytes >= 0")
    per_output = report.bytes_per_output()
    if workload.outputs and (not per_output or not io_s):
        raise ValueError(f"{report.path}: the report has no output iteration with bytes and write "
                         "time: the I/O cannot be measured from it")
    return per_output, io_s, writers


def _overhead(report: Report, sim) -> tuple:
    """The clients' setup phase holds their wait in finalize for the servers' last stores,
    which the model counts as I/O (the drain): (the fixed overhead per client, that wait)."""
    setup = _seconds(report, "roles.simulation.phases.setup.wall_s",
                     _role_phase(report, "simulation", "setup")) or 0.0
    wait = _seconds(report, "roles.simulation.finalize_wait_s", sim.finalize_wait_s) or 0.0
    drain = min(setup, wait)
    return (setup - drain) / sim.ranks, drain


def _tp_quiet(report: Report, compute_per_client: float, overhead: float,
              writers: int) -> tuple:
    """TP: the clients' time inside Ecluse in the iterations without output (a Collective
    store takes part in every iteration; `Report.tp_quiet_s_per_client`), which neither the
    compute phase nor the write time per output holds: TP's own per-iteration cost, given to
    TP's predictions as a compute slowdown (ApproachTerms.compute_factor), so that TP's
    prediction of this very run holds it; the other approaches' clients do not run the stores.
    (the input line or None, the terms)"""
    quiet = report.tp_quiet_s_per_client()
    if quiet <= 0 or compute_per_client <= 0:
        return None, ()
    factor = quiet / compute_per_client
    terms = ApproachTerms(compute_factor=factor, overhead_s=overhead, store_writers=writers,
                          io_busy=report.store_cpu_share())
    text = (f"{quiet * 1e3:.1f} ms per client inside Ecluse in the iterations without output "
            f"(iterations.client_quiet_s): TP's compute +{factor:.1%}")
    return ("TP per-iteration cost", text, "measured"), (("tp", terms),)


def _domains(report: Report) -> tuple:
    """Blocks per client of the run (`architecture.domains`) and where that comes from."""
    domains = _count(report, "architecture.domains", required=False)
    if domains is None:
        return 1, ("domains", "1 block per client (the report does not say)", "assumed")
    return domains, ("domains", f"{_plural(domains, 'block')} per client (architecture.domains)",
                     "measured")


def read(path: str, power: Power, host_cpus: Optional[int] = None) -> ReportInputs:
    """The inputs of one run; ValueError naming what the report lacks."""
    report = load_report(path)
    workload = _workload(report, None, None, fix="advise from the report of a run that ended "
                         "iterations")
    nodes, per_node, hosts = _platform(report)
    label = _approach(report).label(nodes)
    sim, compute = _compute(report)
    per_iter = compute / sim.ranks / workload.iterations
    per_output, io_s, writers = _output(report, workload)
    cpus = (host_cpus or os.cpu_count() or 1) if hosts == 1 else None
    t_base = per_iter * sim.ranks
    bandwidth = Bandwidth((writers,), (per_output / io_s,)) if workload.outputs else None
    overhead, drain = _overhead(report, sim)
    quiet, terms = _tp_quiet(report, compute / sim.ranks, overhead, writers)
    app = AppModel(t_base, Scalability(), Scalability(), bandwidth,
                   _copy(report), overhead, io_busy=report.store_cpu_share(), terms=terms)
    platform = Platform(nodes, per_node, power.idle_watts, power.max_watts, power.id, cpus)
    domains, domains_source = _domains(report)
    sources = (
        ("compute", f"{per_iter * 1e3:.3f} ms per iteration on {_plural(sim.ranks, 'client')}",
         "measured"),
        ("scalability", f"perfect from {_plural(sim.ranks, 'client')} (one run: one point)",
         "assumed"),
        ("output", _output_text(workload, per_output), "measured"),
        ("write time", f"{(io_s or 0) * 1e3:.2f} ms per output by {_plural(writers, 'writer')} "
                       f"({label}; other writer counts: same bandwidth)", "measured"),
        ("fixed overhead", f"{overhead * 1e3:.1f} ms (clients' setup phase"
         + (f", without their {drain / sim.ranks * 1e3:.1f} ms wait in finalize for the "
            "servers' last stores)" if drain else ")"), "measured"),
        domains_source,
        ("power", power.label(), power.source))
    if quiet:
        sources = sources[:5] + (quiet,) + sources[5:]
    return ReportInputs(app, platform, workload, sources, domains,
                        _notes(workload, per_output) + _other_load_notes(report))



def _notes(workload: Workload, per_output: Optional[float]) -> tuple:
    """The small-output note of profile and validate, for one run's report."""
    if not workload.outputs or not per_output or per_output >= SMALL_OUTPUT_BYTES:  # 1 MiB
        return ()
    return (f"this run wrote {per_output:.0f} bytes per output: at that size a write's time is "
            "mostly its fixed cost per file, which differs between approaches (one file per "
            "client, per node or per server), and the model scales the measured write time as "
            "bytes / bandwidth: the other approaches' predictions may be far off. Advise from a "
            "run that writes the outputs of interest, or from a profile (ecluse profile).",)


def _other_load_notes(report) -> tuple:
    """A run that shared its host: its measured times may be slowed by the other processes."""
    e = report.energy
    if e is None or not e.hosts_with_other_load:
        return ()
    return (f"this run shared its host with other processes ({e.other_cpu_s or 0:.1f} CPU-s "
            "beyond its own ranks): its measured times, which the advice starts from, may be "
            "slowed by them; advise from a run on a quiet machine.",)


def _output_text(workload: Workload, per_output: Optional[float]) -> str:
    if not workload.outputs:
        return "none (the run wrote nothing)"
    return (f"{_plural(workload.outputs, 'output')} in {workload.iterations} iterations "
            f"(every {workload.output_every}), "
            f"{(per_output or 0) / 1e6:.3f} MB")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
