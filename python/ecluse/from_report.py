"""`ecluse advise --from-report run.json`: the model's inputs taken from one real run's report
(docs/report.md), no extra runs. Each input says where it comes from (measured or assumed)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from .model import AppModel, Bandwidth, Platform, Scalability, Workload
from .power import Power
from .report import Report
from .report import load as load_report
from .validate import _approach, _workload


@dataclass(frozen=True)
class ReportInputs:
    app: AppModel
    platform: Platform
    workload: Workload
    sources: tuple          # (input, value text, "measured" | "assumed" | ...), in print order


def _role_phase(report: Report, role: str, phase: str) -> Optional[float]:
    r = report.roles.get(role)
    return r.phase_wall_s(phase) if r else None


def _io_time(report: Report) -> tuple:
    """Seconds per output and the writers: TP's slowest client (its visible write time, stores
    included), DC/DN's slowest server (store), each its mean over its outputs."""
    if report.approach == "tp":
        writers = report.roles["simulation"].ranks if "simulation" in report.roles else 1
    else:
        server = report.server_role()
        writers = server.ranks if server and server.ranks else 1
    return (report.io_time_per_output() or None), int(writers or 1)


def _copy(report: Report) -> Optional[Bandwidth]:
    """DC/DN: the clients' write phase is their hand-over into Ecluse's buffer."""
    per_client = report.copy_bytes_per_client_s() if report.approach != "tp" else None
    if per_client is None:
        return None
    return Bandwidth((int(report.roles["simulation"].ranks),), (per_client,))


def read(path: str, power: Power, host_cpus: Optional[int] = None) -> ReportInputs:
    """The inputs of one run; ValueError naming what the report lacks."""
    report = load_report(path)
    workload = _workload(report, None, None)
    sim = report.roles.get("simulation")
    compute = _role_phase(report, "simulation", "compute")
    if not sim or not sim.ranks or not compute:
        raise ValueError(f"{path}: no compute phase of the simulation role: cannot measure "
                         "the compute time per iteration")
    per_iter = compute / sim.ranks / workload.iterations
    io_s, writers = _io_time(report)
    per_output = report.bytes_per_output()
    if workload.outputs and (not per_output or not io_s):
        raise ValueError(f"{path}: the report has no output iteration with bytes and write "
                         "time: the I/O cannot be measured from it")
    nodes = report.require("nodes")
    per_node = report.ranks_per_node or max(1, report.require("ranks") // nodes)
    hosts = report.hosts or nodes
    cpus = (host_cpus or os.cpu_count() or 1) if hosts == 1 else None
    t_base = per_iter * sim.ranks
    bandwidth = Bandwidth((writers,), (per_output / io_s,)) if workload.outputs else None
    # The clients' setup phase holds their wait in finalize for the servers' last stores,
    # which the model counts as I/O (the drain): the fixed overhead is the rest.
    setup = _role_phase(report, "simulation", "setup") or 0.0
    drain = min(setup, sim.finalize_wait_s or 0.0)
    overhead = (setup - drain) / sim.ranks
    app = AppModel(t_base, Scalability(), Scalability(), bandwidth,
                   _copy(report), overhead, io_busy=report.store_cpu_share())
    platform = Platform(nodes, per_node, power.idle_watts, power.max_watts, power.id, cpus)
    label = _approach(report).label(nodes)
    sources = (
        ("compute", f"{per_iter * 1e3:.3f} ms per iteration on {sim.ranks} clients", "measured"),
        ("scalability", f"perfect from {sim.ranks} clients (one run: one point)", "assumed"),
        ("output", f"every {workload.output_every}, {(per_output or 0) / 1e6:.3f} MB", "measured"),
        ("write time", f"{(io_s or 0) * 1e3:.2f} ms per output by {writers} writers "
                       f"({label}; other writer counts: same bandwidth)", "measured"),
        ("fixed overhead", f"{overhead * 1e3:.1f} ms (clients' setup phase"
         + (f", without their {drain / sim.ranks * 1e3:.1f} ms wait in finalize for the "
            "servers' last stores)" if drain else ")"), "measured"),
        ("power", power.label(), power.source))
    return ReportInputs(app, platform, workload, sources)
