"""The energy model of seed 002 §3 (E = T_sim x P_sim) and Ecluse's switchable extensions.

The paper's formulas are the `paper_*` functions; `predict` combines them with the extensions
chosen in `ModelOptions` (`ModelOptions.paper()` turns every extension off). See docs/model.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Optional, Sequence, Union

# ---------------------------------------------------------------------------------------------
# The paper's model, exactly (seed 002, equations 1-4)


def paper_time(t_base: float, s_cores, s_nodes, n_cores: int, n_nodes: int, n_iter: int) -> float:
    """Eq. 2 times the iteration count: T_base / ((n_cores s_cores(n_cores)) (n_nodes s_nodes(n_nodes))) x n_iter.

    `t_base` is one iteration on one core of one node; `s_cores`, `s_nodes` are callables giving
    the scalability (speedup / resources, 1 = perfect)."""
    speedup = (n_cores * s_cores(n_cores)) * (n_nodes * s_nodes(n_nodes))
    return t_base / speedup * n_iter


def paper_power_dc(p_max: float) -> float:
    """Eq. 4: with dedicated cores every node is taken as fully busy."""
    return p_max


def paper_power_dn(c_n: int, d_n: int, p_idle: float, p_max: float) -> float:
    """Eq. 3: average node power with c_n simulation nodes and d_n dedicated nodes."""
    return (c_n * p_max + d_n * (p_idle + p_max) / 2) / (c_n + d_n)


def paper_energy(t_sim: float, p_sim: float) -> float:
    """Eq. 1: E = T_sim x P_sim (P_sim is a node's average power: multiply by the node count
    for the whole machine; the factor is the same for every approach at a given node count)."""
    return t_sim * p_sim


def node_power(p_idle: float, p_max: float, busy: float) -> float:
    """Linear power in the busy share u of a node's cores: P_idle + (P_max - P_idle) u.

    The same rule as Ecluse's `model` energy source (docs/energy.md), so predictions and
    modelled measurements agree on what a busy core costs."""
    return p_idle + (p_max - p_idle) * busy


# ---------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class Scalability:
    """Time per iteration on k resources: the measured points, and a fitted curve
    t(k) = serial + parallel / k**alpha + log * log2(k) beyond them.

    The scalability of the paper is s(k) = t(1) / (k t(k)): 1 is perfect, above 1 superlinear.
    `serial` is Amdahl's part, `log` the cost of communication growing with the partners,
    `alpha` > 1 a superlinear speed-up (smaller blocks fit the caches, seed 002 Fig. 8).
    Between the smallest and largest measured k, t(k) interpolates the measured points (linear
    in log t over log k, so exact at every measured k); `residual` is the fit's relative
    leave-one-out error (None when too few points to cross-validate)."""

    serial: float = 0.0
    parallel: float = 1.0
    log: float = 0.0
    alpha: float = 1.0
    points: tuple = ()          # ((k, seconds), ...) measured, sorted by k
    residual: Optional[float] = None
    form: str = ""

    def fitted(self, k: float) -> float:
        """The fitted curve alone (used outside the measured range)."""
        return self.serial + self.parallel / k ** self.alpha + self.log * math.log2(k)

    def time(self, k: float) -> float:
        """Time of one iteration on k resources (units of the fit)."""
        pts = self.points
        if pts and pts[0][0] <= k <= pts[-1][0]:
            for (k0, t0), (k1, t1) in zip(pts, pts[1:]):
                if k <= k1:
                    f = math.log(k / k0) / math.log(k1 / k0) if k1 > k0 else 0.0
                    return math.exp(math.log(t0) + f * (math.log(t1) - math.log(t0)))
            return pts[0][1]
        return self.fitted(k)

    def __call__(self, k: float) -> float:
        return self.time(1) / (k * self.time(k))

    def to_json(self) -> dict:
        return {"serial": self.serial, "parallel": self.parallel, "log": self.log,
                "alpha": self.alpha, "points": [list(p) for p in self.points],
                "residual": self.residual, "form": self.form}

    @classmethod
    def from_json(cls, data: dict) -> "Scalability":
        points = tuple(sorted((float(k), float(t)) for k, t in data.get("points") or ()))
        residual = data.get("residual")
        return cls(float(data["serial"]), float(data["parallel"]), float(data["log"]),
                   float(data.get("alpha", 1.0)), points,
                   None if residual is None else float(residual), str(data.get("form", "")))


@dataclass(frozen=True)
class Bandwidth:
    """Measured aggregate write bandwidth (bytes/s) per number of writers.

    Between measured writer counts it is interpolated linearly in log2(writers); outside, the
    nearest measurement is kept (no extrapolation: the file system's limit is unknown there)."""

    writers: tuple
    bytes_per_s: tuple

    def at(self, writers: int) -> float:
        xs = [math.log2(w) for w in self.writers]
        x = math.log2(max(writers, 1))
        if x <= xs[0]:
            return self.bytes_per_s[0]
        for i in range(1, len(xs)):
            if x <= xs[i]:
                f = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
                return self.bytes_per_s[i - 1] + f * (self.bytes_per_s[i] - self.bytes_per_s[i - 1])
        return self.bytes_per_s[-1]

    def to_json(self) -> dict:
        return {"writers": list(self.writers), "bytes_per_s": list(self.bytes_per_s)}

    @classmethod
    def from_json(cls, data: Optional[dict]) -> Optional["Bandwidth"]:
        if not data or not data.get("writers"):
            return None
        pairs = sorted(zip(data["writers"], data["bytes_per_s"]))
        return cls(tuple(int(w) for w, _ in pairs), tuple(float(b) for _, b in pairs))


@dataclass(frozen=True)
class ApproachTerms:
    """What the profile's short runs of one approach (TP, DC(1) or DN(1:1), one client) measured
    beyond the compute-only scaling runs (docs/model.md, "Approach terms").

    compute_factor: the clients' compute is slower by this share in every iteration while the
      approach stores output (the writer's memory traffic, the kernel's write-back on the other
      CPU, Ecluse's per-iteration path); per_output_s: and by this many seconds per output
      (caches refilled after a hand-over or a store), at `bytes_per_client` bytes per client
      per output, scaled by the bytes per client of the run to predict. Both are fitted to the
      compute phase of runs at two output intervals (one interval: the factor alone).
    overhead_s: the approach's fixed time (start-up, the servers' set-up and buffer pre-fault,
      the final drain and finalize): what its runs measured beyond every other modelled term.
    store_bytes_per_s: the approach's own store bandwidth (DC/DN: the servers' store phase per
      output; TP: the clients' write), with `store_writers` writers; copy_bytes_per_s: one
      client's hand-over (the clients' write phase); io_busy: CPU share of whoever stores.
    idle_fraction, cpu: the dedicated role's idle share and each role's CPU use (percent), as
      measured (shown by `advise`, not used by the time model)."""

    compute_factor: float = 0.0
    per_output_s: float = 0.0
    bytes_per_client: float = 0.0
    overhead_s: float = 0.0
    store_bytes_per_s: Optional[float] = None
    store_writers: int = 1
    copy_bytes_per_s: Optional[float] = None
    io_busy: Optional[float] = None
    idle_fraction: Optional[float] = None
    cpu: tuple = ()           # ((role, percent), ...)
    runs: int = 0
    residual: Optional[float] = None   # largest |model - measured| / measured over its runs

    def interference_s(self, compute_s: float, outputs: int, bytes_per_client: float) -> float:
        """Extra compute seconds of a run of `compute_s` compute-only seconds with `outputs`."""
        if outputs <= 0:
            return 0.0
        scale = bytes_per_client / self.bytes_per_client if self.bytes_per_client > 0 else 1.0
        return compute_s * self.compute_factor + outputs * self.per_output_s * scale

    def to_json(self) -> dict:
        return {"compute_factor": self.compute_factor, "per_output_s": self.per_output_s,
                "bytes_per_client": self.bytes_per_client, "overhead_s": self.overhead_s,
                "store_bytes_per_s": self.store_bytes_per_s, "store_writers": self.store_writers,
                "copy_bytes_per_s": self.copy_bytes_per_s, "io_busy": self.io_busy,
                "idle_fraction": self.idle_fraction, "cpu_percent": dict(self.cpu),
                "runs": self.runs, "residual": self.residual}

    @classmethod
    def from_json(cls, data: dict) -> "ApproachTerms":
        def opt(key):
            v = data.get(key)
            return None if v is None else float(v)
        return cls(float(data.get("compute_factor", 0.0)), float(data.get("per_output_s", 0.0)),
                   float(data.get("bytes_per_client", 0.0)), float(data.get("overhead_s", 0.0)),
                   opt("store_bytes_per_s"), int(data.get("store_writers", 1)),
                   opt("copy_bytes_per_s"), opt("io_busy"), opt("idle_fraction"),
                   tuple(sorted((data.get("cpu_percent") or {}).items())),
                   int(data.get("runs", 0)), opt("residual"))


def terms_key(kind: str, clients_per_node: int = 1) -> str:
    """The key of an approach's terms in a profile: its kind, with the clients per node when
    more than one (tp@2: TP with 2 clients on one node)."""
    return kind if clients_per_node <= 1 else f"{kind}@{clients_per_node}"


@dataclass(frozen=True)
class AppModel:
    """What profiling tells about the application: T_base (s), s_cores, s_nodes, bandwidth.

    `copy`: bytes/s with which ONE client hands an output over (its copy into Ecluse's buffer),
    per number of clients copying at once (a `Bandwidth`); `overhead_s`: fixed time of a run
    outside its iteration loop (start-up and finalize within the report's completion time)."""

    t_base_s: float
    s_cores: Scalability = field(default_factory=Scalability)
    s_nodes: Scalability = field(default_factory=Scalability)
    bandwidth: Optional[Bandwidth] = None
    copy: Optional[Bandwidth] = None
    overhead_s: float = 0.0
    noise: Optional[float] = None   # relative run-to-run spread of the profile's repeats
    io_busy: Optional[float] = None  # CPU share of a writing core (store phase CPU / wall)
    terms: tuple = ()   # ((kind, ApproachTerms), ...): the profile's approach runs

    def terms_for(self, kind: str, clients_per_node: int = 1) -> Optional[ApproachTerms]:
        """The terms of `kind` measured with `clients_per_node` clients on a node (TP: the
        profile runs it with one client and with one per CPU); the one-client terms when that
        count was not measured."""
        terms = dict(self.terms)
        return terms.get(terms_key(kind, clients_per_node), terms.get(kind))


@dataclass(frozen=True)
class Platform:
    """Nodes, cores per node and the node power of the machine to predict for.

    `host_cpus`: the nodes are virtual nodes of ONE host with that many CPUs (this development
    VM); time then depends on the simulation's total ranks and power on the host's load."""

    nodes: int
    cores_per_node: int
    idle_watts: float = 100.0
    max_watts: float = 250.0
    power_id: str = "default-uncalibrated"
    host_cpus: Optional[int] = None

    @property
    def physical_nodes(self) -> int:
        return 1 if self.host_cpus else self.nodes


@dataclass(frozen=True)
class Workload:
    """Iterations of the run, iterations between two outputs (0: no output), bytes per output
    iteration (the whole simulation's).

    `output_count`: how many outputs the run made, when it is known (a run report counts them:
    one output at iteration 0 of 200 iterations is one output, not 200 // 1); None derives it
    from the interval, iterations // output_every."""

    iterations: int
    output_every: int = 0
    bytes_per_output: float = 0.0
    output_count: Optional[int] = None

    @property
    def outputs(self) -> int:
        if self.output_count is not None:
            return self.output_count
        return self.iterations // self.output_every if self.output_every > 0 else 0

    @property
    def tail_iterations(self) -> int:
        """Iterations computed after the last output (its I/O can overlap them)."""
        if self.outputs == 0:
            return 0
        return max(0, self.iterations - self.outputs * self.output_every)


MIB = 2 ** 20
BUFFER_HEADROOM = 2   # outputs a buffer holds: one being stored, the next being handed over
BLOCK_BOOKKEEPING = 1 / 32  # the allocator's header and rounding (<= 128 B) per block of >= 4 KiB


def buffer_bytes_for(share: float) -> int:
    """The `<buffer size>` that holds BUFFER_HEADROOM outputs of `share` bytes with the
    allocator's bookkeeping (64 bytes of header per block and the payload rounded up to 64:
    bounded by 1/32 of blocks of 4 KiB or more) and 1 MiB to spare, in whole MiB. A buffer of
    exactly two outputs holds only one and most of the next: the client waits for the whole
    previous output to be stored before its last block (VPIC-IO's 8 MiB outputs took 1.2 times as
    long with 16 MiB as with 17, 24 or 64 MiB)."""
    need = share * BUFFER_HEADROOM * (1 + BLOCK_BOOKKEEPING) + MIB
    return max(1, math.ceil(need / MIB)) * MIB


@dataclass(frozen=True)
class Approach:
    """TP, DC(k dedicated cores per node) or DN(d dedicated nodes)."""

    kind: str  # "tp", "dc" or "dn"
    dedicated_cores: int = 0
    dedicated_nodes: int = 0

    def label(self, nodes: int) -> str:
        if self.kind == "dc":
            return f"DC({self.dedicated_cores})"
        if self.kind == "dn":
            c_n, d_n = nodes - self.dedicated_nodes, self.dedicated_nodes
            return f"DN({c_n // d_n}:1)" if c_n % d_n == 0 else f"DN({c_n}:{d_n})"
        return "TP"

    def xml(self) -> str:
        """The `<dedicated>` element of `<architecture>` for this approach."""
        return f'<dedicated cores="{self.dedicated_cores}" nodes="{self.dedicated_nodes}"/>'


# ---------------------------------------------------------------------------------------------
# Switches


IdleFraction = Union[None, float, str]


@dataclass(frozen=True)
class ModelOptions:
    """The extensions beyond the paper, each a switch (docs/model.md, "Switches").

    tp_io: add TP's I/O time (bytes / measured bandwidth of all compute ranks writing) to every
      output iteration; the paper does not model TP (its TP is then compute time only).
    blocking: when dedicated resources need longer than the output interval for one output, the
      simulation waits for the difference at every output, and for the last output's drain.
    idle_fraction: share of time dedicated resources are idle. None: the paper (DN at 1/2,
      DC busy-polling at P_max); a number: measured (e.g. from a run report's idle phase);
      "io" (the extended preset: Ecluse's servers sleep while they wait, so a dedicated core
      or node is busy only while it stores): 1 - (modelled I/O time / run time).
    lose_dedicated_cores: DC computes on cores_per_node - k cores. On in the paper preset too:
      seed 002 defines n_cores as "the number of cores per node used by the simulation", and its
      Nancy result (DN(15:1) beats DC(1) on 4-core nodes) needs it; off: dedicated cores cost
      the simulation nothing.
    dvfs_frequency: frequency of dedicated resources as a fraction of the maximum; their busy
      power above idle scales as f ** dvfs_exponent (3: P ~ f V^2 with V ~ f; 1: V fixed), and
      their I/O time as f ** -dvfs_io_exponent (0: I/O-bound, seed 004).
    tp_io_busy: busy share of a core while it writes (it mostly waits on the file system): TP's
      cores in their I/O phases, dedicated cores and nodes while they store (idle_fraction
      "io"). None: the profile's measured share (its output runs' store phase, CPU / wall),
      else 0.5.
    client_copy: DC/DN clients spend bytes per client / the profile's copy bandwidth at every
      output handing their data over (the paper takes the hand-over as free); TP's measured
      write time already holds it.
    fixed_overhead: add the profile's fixed time outside the loop (start-up, finalize) once.
    blocked_clients_sleep: clients waiting for the dedicated resources draw idle power (Ecluse's
      clients wait on a futex); off: busy (an MPI send that spins, as in seed 002's runs). Only
      with an idle_fraction (the paper counts every simulation core busy).
    approach_terms: use what the profile's runs of each approach measured (ApproachTerms): the
      compute slowdown while output is stored, the approach's own fixed overhead, store and copy
      bandwidth and store CPU share, in place of the TP-derived figures. Without such runs in
      the profile, nothing changes.
    """

    tp_io: bool = True
    blocking: bool = True
    idle_fraction: IdleFraction = None
    lose_dedicated_cores: bool = True
    dvfs_frequency: float = 1.0
    dvfs_exponent: float = 3.0
    dvfs_io_exponent: float = 0.0
    tp_io_busy: Optional[float] = None
    client_copy: bool = True
    fixed_overhead: bool = True
    blocked_clients_sleep: bool = True
    approach_terms: bool = True

    @classmethod
    def paper(cls) -> "ModelOptions":
        """Every extension off: the model of seed 002 §3 exactly (n_cores = the cores the
        simulation uses, so DC(k) computes on cores_per_node - k)."""
        return cls(tp_io=False, blocking=False, idle_fraction=None, lose_dedicated_cores=True,
                   dvfs_frequency=1.0, client_copy=False, fixed_overhead=False,
                   blocked_clients_sleep=False, approach_terms=False)

    @classmethod
    def extended(cls, **changes) -> "ModelOptions":
        """Every extension on (the CLI's default), the dedicated resources busy only while they
        store (idle_fraction "io"), with `changes` applied."""
        return replace(cls(idle_fraction="io"), **changes)

    def describe(self) -> str:
        if self == ModelOptions.paper():
            return "paper"
        on = [n for n in ("tp_io", "blocking", "client_copy", "fixed_overhead",
                          "approach_terms") if getattr(self, n)]
        if not self.lose_dedicated_cores:
            on.append("no_lose_dedicated_cores")
        if not self.blocked_clients_sleep:
            on.append("blocked_clients_busy")
        if self.idle_fraction is not None:
            on.append(f"idle_fraction={self.idle_fraction}")
        if self.dvfs_frequency != 1.0:
            on.append(f"dvfs={self.dvfs_frequency:g}^{self.dvfs_exponent:g}")
        return "extended(" + ", ".join(on) + ")"


# ---------------------------------------------------------------------------------------------
# Prediction


@dataclass(frozen=True)
class Prediction:
    """Predicted completion time (s), its parts, average power per physical node and energy."""

    label: str
    approach: Approach
    time_s: float
    compute_s: float
    io_s: float        # TP: I/O phases; DC/DN: the dedicated resources' I/O (hidden or not)
    blocked_s: float   # DC/DN: time the simulation waits for the dedicated resources
    power_w: float
    energy_j: float
    notes: tuple = ()


@dataclass(frozen=True)
class _Layout:
    """Where the simulation runs and who writes, for one approach."""

    sim_nodes: int
    sim_cores: int       # per simulation node
    writers: int
    dedicated_ranks: int


def _layout(platform: Platform, approach: Approach, options: ModelOptions) -> _Layout:
    n, c = platform.nodes, platform.cores_per_node
    if approach.kind == "dc":
        k = approach.dedicated_cores
        cores = c - k if options.lose_dedicated_cores else c
        return _Layout(n, cores, n * k, n * k)
    if approach.kind == "dn":
        d = approach.dedicated_nodes
        return _Layout(n - d, c, d * c, d * c)
    return _Layout(n, c, n * c, 0)


def check_approach(platform: Platform, approach: Approach) -> None:
    """Raises ValueError when the approach leaves the simulation no core or node."""
    if approach.kind == "dc" and not 0 < approach.dedicated_cores < platform.cores_per_node:
        raise ValueError(f"DC({approach.dedicated_cores}) needs 1..{platform.cores_per_node - 1} "
                         f"dedicated cores on {platform.cores_per_node}-core nodes")
    if approach.kind == "dn" and not 0 < approach.dedicated_nodes < platform.nodes:
        raise ValueError(f"DN with {approach.dedicated_nodes} dedicated nodes needs 1.."
                         f"{platform.nodes - 1} of {platform.nodes} nodes")


def compute_time(app: AppModel, platform: Platform, layout: _Layout, n_iter: int) -> float:
    """Eq. 2 on the simulation's share of the machine. On one host (virtual nodes) every rank
    competes for the same CPUs, so time follows the total rank count on the cores' curve."""
    if platform.host_cpus:
        ranks = layout.sim_cores * layout.sim_nodes
        return paper_time(app.t_base_s, app.s_cores, lambda k: 1.0, ranks, 1, n_iter)
    return paper_time(app.t_base_s, app.s_cores, app.s_nodes, layout.sim_cores,
                      layout.sim_nodes, n_iter)


def _scaled(curve: Optional[Bandwidth], measured: Optional[float], at: int,
            count: int) -> Optional[float]:
    """A bandwidth for `count` writers (or clients): the curve's, scaled by what an approach's
    own runs measured at `at` against the curve there (ApproachTerms); the measurement alone
    without a curve; None without either."""
    if measured is None:
        return curve.at(count) if curve else None
    if curve is None:
        return measured
    return curve.at(count) * measured / curve.at(at)


def io_time_per_output(app: AppModel, workload: Workload, writers: int,
                       terms: Optional[ApproachTerms] = None) -> Optional[float]:
    """Seconds for `writers` to write one output iteration: the bandwidth runs' curve, at the
    level the approach's own runs measured when `terms` has one (TP: the clients' write;
    DC/DN: the servers' store); None without a bandwidth."""
    if workload.bytes_per_output <= 0 or workload.outputs == 0:
        return 0.0
    measured = terms.store_bytes_per_s if terms is not None else None
    at = terms.store_writers if terms is not None else 1
    bandwidth = _scaled(app.bandwidth, measured, at, writers)
    return None if bandwidth is None else workload.bytes_per_output / bandwidth


def client_copy_time(app: AppModel, workload: Workload, clients: int,
                     terms: Optional[ApproachTerms] = None) -> Optional[float]:
    """Seconds one output's hand-over takes the clients of DC/DN: each copies its share,
    bytes per output / clients, at the profile's copy bandwidth for that many clients copying
    at once (at the level the approach's own runs measured for one client, with `terms`);
    None without a copy bandwidth."""
    if workload.bytes_per_output <= 0 or workload.outputs == 0:
        return 0.0
    clients = max(1, clients)
    measured = terms.copy_bytes_per_s if terms is not None else None
    bandwidth = _scaled(app.copy, measured, 1, clients)
    return None if bandwidth is None else workload.bytes_per_output / clients / bandwidth


def blocked_time(io_s: float, interval_s: float, tail_s: float, outputs: int) -> float:
    """Time the simulation waits when one output takes longer than the output interval.

    Steady state: every output after the first waits io - interval (the buffer holds one
    output); the last output must drain too, overlapped only by the iterations after it."""
    if outputs == 0:
        return 0.0
    per_output = max(0.0, io_s - interval_s)
    return (outputs - 1) * per_output + max(0.0, io_s - tail_s)


def io_busy(app: AppModel, options: ModelOptions,
            terms: Optional[ApproachTerms] = None) -> float:
    """CPU share of a core while it writes: the option, else the approach's own runs'
    measurement (`terms`), else the profile's, else 0.5."""
    if options.tp_io_busy is not None:
        return options.tp_io_busy
    for measured in (terms.io_busy if terms is not None else None, app.io_busy):
        if measured is not None:
            return measured
    return 0.5


def _dedicated_busy(options: ModelOptions, kind: str, io_total_s: float, time_s: float,
                    writing_busy: float) -> float:
    """Busy share of the dedicated resources (before DVFS); "io": the share of the run they
    store, at the CPU share of a writing core."""
    f = options.idle_fraction
    if f is None:
        return 1.0 if kind == "dc" else 0.5  # eq. 4 (busy polling) and eq. 3
    if f == "io":
        return min(1.0, io_total_s / time_s) * writing_busy if time_s > 0 else 0.0
    return 1.0 - float(f)


def _dvfs_power_factor(options: ModelOptions) -> float:
    return options.dvfs_frequency ** options.dvfs_exponent


def predict(app: AppModel, platform: Platform, workload: Workload, approach: Approach,
            options: ModelOptions = ModelOptions()) -> Prediction:
    """Predicted time, power and energy of one approach (docs/model.md, "Prediction")."""
    check_approach(platform, approach)
    layout = _layout(platform, approach, options)
    compute = compute_time(app, platform, layout, workload.iterations)
    if approach.kind == "tp":
        return _predict_tp(app, platform, workload, approach, options, layout, compute)
    return _predict_dedicated(app, platform, workload, approach, options, layout, compute)


def _terms(app: AppModel, approach: Approach, options: ModelOptions,
           clients_per_node: int = 1) -> Optional[ApproachTerms]:
    """The profile's measured terms of this approach's kind (with that many clients per node
    when measured), when the switch is on."""
    return app.terms_for(approach.kind, clients_per_node) if options.approach_terms else None


def _overhead(app: AppModel, terms: Optional[ApproachTerms], options: ModelOptions) -> float:
    if not options.fixed_overhead:
        return 0.0
    return terms.overhead_s if terms is not None else app.overhead_s


def _interference(terms: Optional[ApproachTerms], workload: Workload, compute: float,
                  clients: int) -> float:
    """Extra compute time while the approach stores output (ApproachTerms), 0 without terms."""
    if terms is None:
        return 0.0
    per_client = workload.bytes_per_output / max(1, clients)
    return terms.interference_s(compute, workload.outputs, per_client)


def _predict_tp(app, platform, workload, approach, options, layout, compute) -> Prediction:
    notes = []
    terms = _terms(app, approach, options, layout.sim_cores)
    io = io_time_per_output(app, workload, layout.writers, terms) if options.tp_io else 0.0
    if io is None:
        notes.append("no bandwidth measured: TP I/O time taken as 0")
        io = 0.0
    io_total = io * workload.outputs
    compute += _interference(terms, workload, compute, layout.sim_nodes * layout.sim_cores)
    overhead = _overhead(app, terms, options)
    time = compute + io_total + overhead
    p_max, p_idle = platform.max_watts, platform.idle_watts
    if platform.host_cpus:
        ranks = layout.sim_nodes * layout.sim_cores
        p_comp = node_power(p_idle, p_max, min(1.0, ranks / platform.host_cpus))
        writing = ranks * io_busy(app, options, terms)
        p_io = node_power(p_idle, p_max, min(1.0, writing / platform.host_cpus))
    else:
        p_comp, p_io = p_max, node_power(p_idle, p_max, io_busy(app, options, terms))
    energy = ((compute + overhead) * p_comp + io_total * p_io) * platform.physical_nodes
    return _finish(approach, platform, time, compute, io_total, 0.0, energy, notes)


def _predict_dedicated(app, platform, workload, approach, options, layout, compute) -> Prediction:
    notes = []
    terms = _terms(app, approach, options)
    io = io_time_per_output(app, workload, layout.writers, terms)
    if io is None:
        if options.blocking or options.idle_fraction == "io":
            notes.append("no bandwidth measured: dedicated I/O time taken as 0")
        io = 0.0
    io *= options.dvfs_frequency ** -options.dvfs_io_exponent
    clients = layout.sim_nodes * layout.sim_cores
    copy = 0.0
    if options.client_copy:
        copy = client_copy_time(app, workload, clients, terms)
        if copy is None:
            notes.append("no copy bandwidth measured: the clients' copy taken as 0")
            copy = 0.0
    compute += _interference(terms, workload, compute, clients)
    blocked = 0.0
    if options.blocking and workload.outputs:
        per_iter = compute / workload.iterations
        blocked = blocked_time(io, per_iter * workload.output_every + copy,
                               per_iter * workload.tail_iterations, workload.outputs)
    overhead = _overhead(app, terms, options)
    time = compute + copy * workload.outputs + blocked + overhead
    busy = _dedicated_busy(options, approach.kind, io * workload.outputs, time,
                           io_busy(app, options, terms))
    # Per role (issue 15): clients that wait for the dedicated resources sleep; the paper
    # counts them busy.
    sleeps = options.idle_fraction is not None and options.blocked_clients_sleep and time > 0
    sim_busy = 1.0 - blocked / time if sleeps else 1.0
    power = _dedicated_power(platform, approach, layout, busy * _dvfs_power_factor(options),
                             options, sim_busy)
    energy = time * power * platform.physical_nodes
    return _finish(approach, platform, time, compute, io * workload.outputs, blocked, energy, notes)


def _dedicated_power(platform: Platform, approach: Approach, layout: _Layout, ded_busy: float,
                     options: ModelOptions, sim_busy: float = 1.0) -> float:
    """Average power per physical node: simulation cores at `sim_busy`, dedicated ones at
    `ded_busy`."""
    p_idle, p_max = platform.idle_watts, platform.max_watts
    if platform.host_cpus:
        load = layout.sim_nodes * layout.sim_cores * sim_busy + layout.dedicated_ranks * ded_busy
        return node_power(p_idle, p_max, min(1.0, load / platform.host_cpus))
    if approach.kind == "dn":
        c_n, d_n = layout.sim_nodes, approach.dedicated_nodes
        if options.idle_fraction is None and ded_busy == 0.5:
            return paper_power_dn(c_n, d_n, p_idle, p_max)  # the paper's eq. 3, unrounded
        return (c_n * node_power(p_idle, p_max, sim_busy)
                + d_n * node_power(p_idle, p_max, ded_busy)) / (c_n + d_n)
    if options.idle_fraction is None and ded_busy == 1.0:
        return paper_power_dc(p_max)
    c, k = platform.cores_per_node, approach.dedicated_cores
    share = min(1.0, (layout.sim_cores * sim_busy + k * ded_busy) / c)
    return node_power(p_idle, p_max, share)


def _finish(approach, platform, time, compute, io, blocked, energy, notes) -> Prediction:
    power = energy / (time * platform.physical_nodes) if time > 0 else 0.0
    return Prediction(approach.label(platform.nodes), approach, time, compute, io, blocked,
                      power, energy, tuple(notes))


# ---------------------------------------------------------------------------------------------
# Candidates


DN_RATIOS = (1, 3, 7, 15, 31, 63)


def candidate_approaches(platform: Platform, max_dedicated_cores: int = 2,
                         dn_ratios: Sequence[int] = DN_RATIOS) -> list:
    """TP, DC(1..k) while a core is left to compute, DN at the ratios the node count allows
    (c_n / d_n = r exactly) and DN(N-1:1)."""
    out = [Approach("tp")]
    for k in range(1, min(max_dedicated_cores, platform.cores_per_node - 1) + 1):
        out.append(Approach("dc", dedicated_cores=k))
    dedicated = {platform.nodes // (r + 1) for r in dn_ratios if platform.nodes % (r + 1) == 0}
    if platform.nodes >= 2:
        dedicated.add(1)
    for d in sorted(dedicated, reverse=True):
        if 0 < d < platform.nodes:
            out.append(Approach("dn", dedicated_nodes=d))
    return out
