"""The `ecluse` command: profile, predict, advise, validate (docs/model.md), and run (a command
whose summary then ends with the model's least-cost line, docs/report.md)."""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from . import advise as adv
from . import approach_runs as ar
from . import calibrate
from . import from_report
from . import least_cost
from . import profile as prof
from . import validate as val
from .model import AppModel, Bandwidth, ModelOptions, Platform, Scalability, Workload
from .power import CalibrationError, Power, resolve_power

_UNITS = {"": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tb": 1e12, "tib": 2**40}


def parse_bytes(text: str) -> float:
    """`64MiB`, `1.5GB`, `1000` -> bytes (a trailing `/s` is allowed for bandwidths)."""
    m = re.fullmatch(r"\s*([0-9.]+(?:e[0-9]+)?)\s*([a-zA-Z]*)(?:/s)?\s*", text)
    try:
        value = float(m.group(1)) * _UNITS[m.group(2).lower()] if m else math.nan
    except (KeyError, ValueError):
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 64MiB, 1.5GB, 1000)")
    return value


def positive_bytes(text: str) -> float:
    """A size above zero (bytes per output, a bandwidth)."""
    value = parse_bytes(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size above 0 (e.g. 64MiB, 500MB/s)")
    return value


def _checked(convert, accept, expected: str):
    """An argparse type: convert(text), kept when accept(value); else 'TEXT' is not `expected`."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not accept(value):
            raise argparse.ArgumentTypeError(f"'{text}' is not {expected}")
        return value
    return parse


positive_int = _checked(int, lambda v: v >= 1, "a whole number >= 1")
whole = _checked(int, lambda v: v >= 0, "a whole number >= 0")
positive = _checked(float, lambda v: math.isfinite(v) and v > 0, "a finite number > 0")
non_negative = _checked(float, lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0")
fraction = _checked(float, lambda v: 0 < v <= 1, "a fraction within (0, 1], e.g. 0.8")
share = _checked(float, lambda v: 0 <= v <= 1, "a share within 0..1, e.g. 0.5")


def int_list(text: str) -> tuple:
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of integers (e.g. 1,2,4)") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': counts must be positive")
    return values


def idle_fraction(text: str):
    if text in ("io", "measured", "paper"):
        return text
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("--idle-fraction must be within 0..1, 'io', 'paper' or "
                                         "'measured'")
    return value


# ---------------------------------------------------------------------------------------------
# Shared options


def _add_power(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("power (explicit values > calibration file > profile > default)")
    g.add_argument("--idle-watts", type=non_negative, help="P_idle of a node (W)")
    g.add_argument("--max-watts", type=non_negative, help="P_max of a node (W)")
    g.add_argument("--power-id", help="label of explicit power values (default: options)")
    g.add_argument("--calibration", help="calibration file (INI format of docs/energy.md)")


def _add_model(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model switches (docs/model.md)")
    g.add_argument("--model", choices=("extended", "paper"), default="extended",
                   help="paper: seed 002 §3 exactly; extended (default): every extension on")
    g.add_argument("--no-tp-io", action="store_true", help="TP without its I/O time")
    g.add_argument("--no-blocking", action="store_true", help="never block on dedicated resources")
    g.add_argument("--no-client-copy", action="store_true",
                   help="DC/DN clients hand outputs over for free (no copy term)")
    g.add_argument("--no-fixed-overhead", action="store_true",
                   help="no fixed start-up/finalize time (the profile's overhead_s unused)")
    g.add_argument("--no-approach-terms", action="store_true",
                   help="ignore the profile's approach runs (compute slowdown, per-approach "
                        "overhead, store and copy bandwidth)")
    g.add_argument("--no-lose-cores", action="store_true",
                   help="DC computes on all cores of a node (dedicated cores cost no compute)")
    g.add_argument("--idle-fraction", type=idle_fraction,
                   help="idle share of dedicated resources: a number, 'io' (from the modelled I/O "
                        "time; extended's default), 'paper' (DN at 1/2, DC at P_max) or, for "
                        "validate, 'measured' (from each report)")
    g.add_argument("--dvfs", type=fraction,
                   help="frequency of dedicated resources, fraction of max (0 < f <= 1)")
    g.add_argument("--dvfs-exponent", type=non_negative,
                   help="busy power ~ f**A (3: cubic, 1: linear)")
    g.add_argument("--dvfs-io-exponent", type=non_negative,
                   help="I/O time ~ f**-B (0: I/O-bound)")
    g.add_argument("--tp-io-busy", type=share,
                   help="CPU share of a core while it writes, 0..1 (default: the profile's "
                   "measurement, else 0.5)")


def model_options(args) -> ModelOptions:
    """The switches of the command line on top of the chosen preset."""
    base = ModelOptions.paper() if args.model == "paper" else ModelOptions.extended()
    changes = {}
    if args.no_tp_io:
        changes["tp_io"] = False
    if args.no_blocking:
        changes["blocking"] = False
    if args.no_client_copy:
        changes["client_copy"] = False
    if args.no_fixed_overhead:
        changes["fixed_overhead"] = False
    if args.no_lose_cores:
        changes["lose_dedicated_cores"] = False
    if args.no_approach_terms:
        changes["approach_terms"] = False
    if args.idle_fraction == "paper":
        changes["idle_fraction"] = None
    elif args.idle_fraction is not None and args.idle_fraction != "measured":
        changes["idle_fraction"] = args.idle_fraction
    for arg, name in (("dvfs", "dvfs_frequency"), ("dvfs_exponent", "dvfs_exponent"),
                      ("dvfs_io_exponent", "dvfs_io_exponent"), ("tp_io_busy", "tp_io_busy")):
        if getattr(args, arg) is not None:
            changes[name] = getattr(args, arg)
    return ModelOptions(**{**base.__dict__, **changes})


def power_from(args, doc: Optional[dict]) -> Power:
    if args.idle_watts is None and args.max_watts is None and not args.calibration and doc:
        return prof.profile_power(doc)
    return resolve_power(args.idle_watts, args.max_watts, args.calibration, args.power_id)


def power_line(power: Power) -> str:
    return f"energy: modelled with node power {power.label()} [{power.source}]"


def _power_json(power: Power) -> dict:
    """The node power of the JSON documents (advise, validate): as power_line says it."""
    return {"label": power.label(), "source": power.source}


# ---------------------------------------------------------------------------------------------
# profile


def _profile_parser(sub) -> None:
    p = sub.add_parser("profile", help="run a command without output on 1..N cores and 1..M "
                       "nodes, fit s_cores, s_nodes, T_base; write a profile",
                       description="ecluse profile [options] [-- command ...]; the command may "
                       "hold {ranks}, {local}, {iterations}, {output_every}. Default: the proxy "
                       "with --compute-only on a fixed global grid.")
    p.add_argument("-o", "--output", default="ecluse-profile.json", help="profile file to write")
    p.add_argument("--cores", type=int_list, default=(1, 2, 3, 4), help="cores on one node (1,2,3,4)")
    p.add_argument("--nodes", type=int_list, default=(1, 2), help="virtual nodes (1,2)")
    p.add_argument("--ranks-per-node", type=positive_int,
                   help="cores per node of the node sweep ($ECLUSE_RANKS_PER_NODE, else 2)")
    p.add_argument("--iterations", type=positive_int, default=30)
    p.add_argument("--global", dest="global_grid", type=_grid,
                   default=(128, 128, 40), help="global grid the proxy keeps (128x128x40)")
    p.add_argument("--repeats", type=positive_int, default=1,
                   help="runs per point; the median is kept (see --keep)")
    p.add_argument("--keep", choices=("median", "fastest"), default="median",
                   help="which of the repeated compute runs a point keeps (median)")
    p.add_argument("--bandwidth", action="store_true",
                   help="also measure write time per writer count: the command (the proxy by "
                        "default) with {output_every} filled, under TP")
    p.add_argument("--writers", type=int_list, default=(1, 2), help="writer counts (1,2)")
    p.add_argument("--output-every", type=positive_int, default=5,
                   help="bandwidth runs: output interval")
    p.add_argument("--no-approaches", action="store_true",
                   help="with --bandwidth, skip the approach runs (one client under TP, DC(1) "
                        "and DN(1:1) at two output intervals, docs/model.md)")
    p.add_argument("--output-every-long", type=positive_int,
                   help="approach runs: the second output interval (4 x --output-every)")
    p.add_argument("--xml", metavar="PATH", help="approach runs: the command's configuration "
                   "file, rewritten for DC and DN (default: its argument ending in .xml)")
    p.add_argument("--timeout", type=positive, default=600.0, help="seconds per run")
    _add_power(p)
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- command and its arguments")


def _grid(text: str) -> tuple:
    """--global: NXxNYxNZ, each a whole number >= 1 (argparse's usage error otherwise)."""
    try:
        return prof.parse_grid(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a grid NXxNYxNZ of whole numbers "
                                         ">= 1 (e.g. 128x128x40)") from None


RANKS_PER_NODE_VARIABLE = "ECLUSE_RANKS_PER_NODE"


def ranks_per_node(given: Optional[int]) -> int:
    """--ranks-per-node, else $ECLUSE_RANKS_PER_NODE (unset or empty: 2); ValueError naming the
    variable when it is not a whole number >= 1."""
    if given is not None:
        return given
    text = os.environ.get(RANKS_PER_NODE_VARIABLE, "").strip()
    if not text:
        return 2
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{RANKS_PER_NODE_VARIABLE}={text!r} is not a whole number >= 1: set it "
                         "to the ranks of a virtual node (e.g. 2), unset it, or give "
                         "--ranks-per-node")
    return value


def _check_profile_intervals(args) -> None:
    """An output interval longer than the runs: ValueError naming the option (the output
    runs would write once, at iteration 0, and report an interval of 1)."""
    if not args.bandwidth:
        return
    for option, every in (("--output-every", args.output_every),
                          ("--output-every-long", args.output_every_long)):
        if every is not None and every > args.iterations:
            raise ValueError(f"{option} {every} is more than --iterations {args.iterations}: the "
                             "output runs would write once, at iteration 0, not at that "
                             f"interval; give {option} {args.iterations} or less, or more "
                             "--iterations")


def cmd_profile(args) -> int:
    _check_profile_intervals(args)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    settings = prof.ProfileSettings(
        cores=args.cores, nodes=args.nodes, ranks_per_node=ranks_per_node(args.ranks_per_node),
        iterations=args.iterations, global_grid=args.global_grid, repeats=args.repeats,
        writers=args.writers if args.bandwidth else (), output_every=args.output_every,
        timeout_s=args.timeout, keep=args.keep,
        approaches=args.bandwidth and not args.no_approaches, config=args.xml,
        long_every=args.output_every_long)
    command, launcher = prof.strip_launcher(command)
    command = prof.absolute_paths(command)
    if settings.config is not None:
        settings.config = prof.absolute_paths([settings.config])[0]
    if launcher:
        print(f"note: the command's launcher '{' '.join(launcher)}' is replaced by "
              f"{prof.mpiexec()} with the profile's own rank counts (set ECLUSE_MPIEXEC to "
              "change it; environment options such as -x are not carried over: export them)",
              file=sys.stderr)
    if command:
        settings.command = list(command)
        settings.bandwidth_command = list(command)   # the user's program measures its own I/O
    elif not prof.default_proxy().exists():
        print(f"ecluse profile: {prof.default_proxy()} not found: build the project "
              "(scripts/setup.sh) or give a command after --", file=sys.stderr)
        return 2
    power = resolve_power(args.idle_watts, args.max_watts, args.calibration, args.power_id)
    doc = prof.run_profile(settings, power)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(describe_profile(doc))
    print(f"wrote {args.output}")
    return 0


def describe_profile(doc: dict) -> str:
    """A few lines: T_base, the scalabilities at the measured points, power, oversubscription."""
    app = prof.app_model(doc)
    cores = sorted({r["ranks"] for r in doc["runs"] if r["kind"] == "cores"})
    nodes = sorted({r["nodes"] for r in doc["runs"] if r["kind"] == "nodes"})
    lines = [f"T_base = {app.t_base_s * 1e3:.3f} ms per iteration (1 core, 1 node)",
             "s_cores: " + ", ".join(f"{k}: {app.s_cores(k):.3f}" for k in cores),
             "s_nodes: " + ", ".join(f"{k}: {app.s_nodes(k):.3f}" for k in nodes),
             f"power: {Power.from_json(doc.get('power')).label()}"]
    if doc.get("bandwidth"):
        bw = doc["bandwidth"]
        lines.append("bandwidth: " + ", ".join(f"{w} writers {b / 1e6:.1f} MB/s"
                                                for w, b in zip(bw["writers"], bw["bytes_per_s"])))
    if app.copy is not None:
        lines.append("client copy: " + ", ".join(f"{w} clients {b / 1e6:.0f} MB/s each" for w, b
                                                  in zip(app.copy.writers, app.copy.bytes_per_s)))
    if doc.get("overhead_s"):
        lines.append(f"fixed overhead: {app.overhead_s * 1e3:.1f} ms per run")
    lines += [f"approach {terms_label(kind)}: {approach_terms_text(terms)}"
              for kind, terms in app.terms]
    if doc.get("oversubscribed"):
        lines.append(f"oversubscribed: up to {doc['max_ranks']} ranks on {doc['cpus']} CPUs")
    return "\n".join(lines)


def terms_label(key: str) -> str:
    """"TP", "DC", "DN"; "TP (2 clients per node)" for the key tp@2."""
    kind, _, clients = key.partition("@")
    return kind.upper() + (f" ({clients} clients per node)" if clients else "")


def approach_terms_text(t) -> str:
    """What an approach's profile runs measured (ApproachTerms), on one line."""
    parts = [f"compute +{t.compute_factor:.1%}"]
    if t.per_output_s:
        parts[0] += f" +{t.per_output_s * 1e3:.2f} ms per output"
    parts.append(f"fixed {t.overhead_s * 1e3:.1f} ms")
    if t.store_bytes_per_s:
        parts.append(f"store {t.store_bytes_per_s / 1e6:.0f} MB/s")
    if t.copy_bytes_per_s:
        parts.append(f"copy {t.copy_bytes_per_s / 1e6:.0f} MB/s")
    if t.idle_fraction is not None:
        parts.append(f"servers idle {t.idle_fraction:.0%}")
    if t.cpu:
        parts.append("CPU " + ", ".join(f"{role} {pct:.0f}%" for role, pct in t.cpu))
    if t.residual is not None:
        parts.append(f"model within {t.residual:.1%} of its {t.runs} runs")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------
# predict / advise


def _platform_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", help="profile from `ecluse profile`")
    p.add_argument("--t-base", type=positive, help="without a profile: seconds per iteration on "
                   "one core (perfect scalability assumed)")
    p.add_argument("--from-report", metavar="RUN.json", help="take every input from one run's "
                   "report (docs/report.md): platform, compute, output, write time; no extra runs")
    p.add_argument("--nodes", type=positive_int, help="nodes of the platform")
    p.add_argument("--cores-per-node", type=positive_int)
    p.add_argument("--host-cpus", type=positive_int, help="the nodes are virtual nodes of one "
                   "host with this many CPUs (this machine)")
    p.add_argument("--iterations", type=positive_int)
    p.add_argument("--output-every", type=positive_int, help="iterations between outputs")
    p.add_argument("--no-output", action="store_true",
                   help="the run writes nothing (without it, a missing output is an error)")
    p.add_argument("--bytes-per-output", type=positive_bytes,
                   help="bytes the whole simulation writes per output (e.g. 373MB)")
    p.add_argument("--bandwidth", type=positive_bytes, help="aggregate write bandwidth in bytes/s "
                   "(e.g. 500MB/s), for every writer count; overrides the profile")
    p.add_argument("--max-dedicated-cores", type=whole, default=2,
                   help="DC(1..K) candidates (2)")
    _add_power(p)
    _add_model(p)


def _app_from(args, doc: Optional[dict]) -> tuple:
    """The application model and where its inputs come from: [(input, text, source)]."""
    if doc is not None:
        app = prof.app_model(doc)
        res = app.s_cores.residual
        fit = f", cross-validated error {res:.1%}" if res is not None else ""
        sources = [("compute", f"T_base {app.t_base_s * 1e3:.3f} ms, scalability "
                    f"{app.s_cores.form or 'fit'}{fit} ({args.profile})", "measured")]
        sources += [(f"{terms_label(kind)} terms", approach_terms_text(t) + " (the profile's approach "
                     "runs)", "measured") for kind, t in app.terms]
    elif args.t_base is not None:
        app = AppModel(args.t_base, Scalability(), Scalability())
        sources = [("compute", f"T_base {args.t_base:g} s, perfect scalability", "given")]
    else:
        raise ValueError("give --profile FILE, --from-report RUN.json or --t-base SECONDS")
    if args.bandwidth is not None:
        app = replace(app, bandwidth=Bandwidth((1,), (args.bandwidth,)))
        sources.append(("write bandwidth", f"{args.bandwidth / 1e6:.1f} MB/s for any writer "
                        "count (--bandwidth)", "given"))
    elif app.bandwidth is not None:
        sources.append(("write bandwidth", ", ".join(
            f"{w} writers {b / 1e6:.1f} MB/s" for w, b in zip(app.bandwidth.writers,
                                                             app.bandwidth.bytes_per_s)),
            "measured"))
    return app, sources


def _workload_from(args, doc: Optional[dict], sources: list) -> Workload:
    """The workload; no default is ever zero I/O: a missing input is an error naming it."""
    if args.iterations is None:
        raise ValueError("give --iterations (or --from-report RUN.json)")
    if args.no_output:
        sources.append(("output", "none (--no-output)", "given"))
        return Workload(args.iterations, 0, 0.0)
    if args.output_every is None:
        raise ValueError("no output interval: give --output-every K and --bytes-per-output "
                         "(or --from-report RUN.json; --no-output for a run that writes nothing)")
    if args.output_every > args.iterations:
        raise ValueError(f"--output-every {args.output_every} is more than --iterations "
                         f"{args.iterations}: such a run writes once, at iteration 0, or never, "
                         f"and the model would take it as writing nothing; give --output-every "
                         f"{args.iterations} or less, or --from-report RUN.json (a report counts "
                         "its outputs)")
    per_output = args.bytes_per_output or prof.profile_bytes_per_output(doc)
    if not per_output:
        raise ValueError("no bytes per output: give --bytes-per-output (e.g. 373MB), a profile "
                         "whose bandwidth runs measured them, or --from-report RUN.json")
    source = "given" if args.bytes_per_output else "measured"
    sources.append(("output", f"every {args.output_every}, {per_output / 1e6:.3f} MB", source))
    return Workload(args.iterations, args.output_every, per_output)


def _load_doc(args) -> Optional[dict]:
    return prof.load_profile(args.profile) if args.profile else None


# Options --from-report takes from the report instead (predict and advise refuse them with it).
_REPORT_TAKES = (("profile", "--profile"), ("t_base", "--t-base"), ("nodes", "--nodes"),
                 ("cores_per_node", "--cores-per-node"), ("iterations", "--iterations"),
                 ("output_every", "--output-every"), ("no_output", "--no-output"),
                 ("bytes_per_output", "--bytes-per-output"), ("bandwidth", "--bandwidth"),
                 ("domains", "--domains"))


def _refuse_with_report(args) -> None:
    """ValueError naming the options given with --from-report that the report decides."""
    given = [option for dest, option in _REPORT_TAKES
             if getattr(args, dest, None) not in (None, False)]
    if given:
        them = "it" if len(given) == 1 else "them"
        raise ValueError(f"--from-report takes the platform, the workload, the application and "
                         f"the domains from the run's report: {', '.join(given)} cannot be given "
                         f"with it; leave {them} out, or advise without --from-report "
                         "(--profile or --t-base, --nodes, --cores-per-node, --iterations, ...)")


@dataclass(frozen=True)
class Predicted:
    """What predict and advise print: the advice and every input it came from."""

    advice: adv.Advice
    platform: Platform
    workload: Workload
    power: Power
    options: ModelOptions
    sources: list
    domains: int = 1
    notes: tuple = ()  # about the inputs (e.g. a report's small outputs)


def profiled_domains(doc: Optional[dict]) -> Optional[tuple]:
    """(count, file): the `<domains count>` of the profiled command's configuration (its
    argument ending in .xml, as the approach runs find it), None when the file or the element
    is not there (any more)."""
    command = (doc or {}).get("command") or []
    at = ar.config_index([str(c) for c in command])
    if at is None:
        return None
    try:
        with open(command[at], encoding="utf-8") as f:
            count = ar.domains_count(f.read())
    except OSError:
        return None
    return (count, command[at]) if count is not None else None


def _domains_from(args, sources: list, doc: Optional[dict] = None) -> int:
    """--domains (advise), else the profiled configuration's, else 1, labelled: the
    <architecture> block carries it."""
    given = getattr(args, "domains", None)
    if given is not None:
        sources.append(("domains", f"{given} blocks per client (--domains)", "given"))
        return given
    profiled = profiled_domains(doc) if hasattr(args, "domains") else None
    if profiled:
        count, path = profiled
        sources.append(("domains", f"{count} block{'' if count == 1 else 's'} per client "
                        f"(<domains count> of {path}, the profiled command's configuration; "
                        "--domains N to change it)", "measured"))
        return count
    if hasattr(args, "domains"):
        sources.append(("domains", "1 block per client (give --domains N when the simulation's "
                        "<domains count> is N)", "default"))
    return 1


def _inputs_from_options(args) -> tuple:
    """(app, platform, workload, power, sources, domains) from a profile or the options."""
    doc = _load_doc(args)
    app, sources = _app_from(args, doc)
    workload = _workload_from(args, doc, sources)
    if workload.outputs and app.bandwidth is None:
        raise ValueError("no write bandwidth: give --bandwidth (e.g. 500MB/s), a profile made "
                         "with --bandwidth, or --from-report RUN.json")
    if args.nodes is None or args.cores_per_node is None:
        raise ValueError("give --nodes and --cores-per-node (or --from-report RUN.json)")
    power = power_from(args, doc)
    platform = Platform(args.nodes, args.cores_per_node, power.idle_watts, power.max_watts,
                        power.id, args.host_cpus)
    domains = _domains_from(args, sources, doc)
    sources.append(("power", power.label(), power.source))
    return app, platform, workload, power, sources, domains


def _inputs_from_report(args) -> tuple:
    """(app, platform, workload, power, sources, domains) from one run's report."""
    _refuse_with_report(args)
    power = resolve_power(args.idle_watts, args.max_watts, args.calibration, args.power_id)
    got = from_report.read(args.from_report, power, args.host_cpus)
    args.input_notes = got.notes
    return got.app, got.platform, got.workload, power, list(got.sources), got.domains


def _predictions(args) -> Predicted:
    read = _inputs_from_report if args.from_report else _inputs_from_options
    app, platform, workload, power, sources, domains = read(args)
    options = model_options(args)
    preds = adv.predict_all(app, platform, workload, options,
                            max_dedicated_cores=args.max_dedicated_cores)
    advice = adv.advise(preds, adv.uncertainty(app))
    notes = tuple(getattr(args, "input_notes", ()))
    return Predicted(advice, platform, workload, power, options, sources, domains, notes)


def _output_text(workload: Workload) -> str:
    """The workload's output, with the run's own count when a report gave it."""
    if not workload.outputs:
        return ", no output"
    size = f"{workload.bytes_per_output / 1e6:.3f} MB per output"
    if workload.output_count is None:
        return f", output every {workload.output_every}, {size}"
    count = f"{workload.outputs} output{'' if workload.outputs == 1 else 's'}"
    return f", {count} (every {workload.output_every}), {size}"


def _header(got: Predicted) -> list:
    platform = got.platform
    host = (f" (virtual nodes on one host of {platform.host_cpus} CPUs)"
            if platform.host_cpus else "")
    nodes = f"{platform.nodes} node{'' if platform.nodes == 1 else 's'}"
    cores = f"{platform.cores_per_node} core{'' if platform.cores_per_node == 1 else 's'}"
    return [f"platform: {nodes} x {cores}{host}",
            f"workload: {got.workload.iterations} iterations{_output_text(got.workload)}",
            f"model: {got.options.describe()}", power_line(got.power)]


def cmd_predict(args) -> int:
    got = _predictions(args)
    print("\n".join(_header(got)))
    print(adv.format_table(got.advice, got.platform))
    _print_notes(got.advice, got.notes)
    return 0


def cmd_advise(args) -> int:
    got = _predictions(args)
    advice = got.advice
    pick = advice.pick(args.goal)
    if args.xml:
        print(adv.architecture_xml(pick, got.platform, got.workload, got.domains))
        return 0
    if args.json:
        doc = adv.to_json(advice, got.platform, got.workload, args.goal, got.domains)
        doc.update(model=got.options.describe(), power=_power_json(got.power),
                   inputs=[{"name": n, "value": t, "source": src} for n, t, src in got.sources])
        print(json.dumps(doc, indent=2, allow_nan=False))
        return 0
    print("\n".join(_header(got)))
    for name, text, source in got.sources:
        print(f"input: {name}: {text} [{source}]")
    print(adv.format_table(advice, got.platform))
    _print_notes(advice, got.notes)
    unit = adv.energy_unit([p.energy_j for p in advice.predictions])
    print(f"least energy: {advice.least_energy.label} "
          f"({adv.energy_text(advice.least_energy.energy_j, unit)})")
    print(f"fastest: {advice.fastest.label} ({advice.fastest.time_s:.3f} s)")
    print(f"why: {advice.why}")
    print(f"saving: {advice.saving_text()}")
    print(f"recommendation ({args.goal}): {pick.label}  {pick.approach.xml()}")
    return 0


def _print_notes(advice, input_notes: tuple = ()) -> None:
    notes = list(input_notes) + sorted({n for p in advice.predictions for n in p.notes})
    for n in notes:
        print(f"note: {n}")


# ---------------------------------------------------------------------------------------------
# validate


def cmd_validate(args) -> int:
    doc = prof.load_profile(args.profile)
    app = prof.app_model(doc)
    power = power_from(args, doc)
    options = model_options(args)
    reports = [val.read_report(p, args.iterations, args.output_every) for p in args.reports]
    writing = [m.path for m in reports if m.workload.outputs and m.workload.bytes_per_output]
    if writing and app.bandwidth is None:  # never zero I/O by default, as predict and advise
        raise ValueError(f"{args.profile} has no write bandwidth, and {writing[0]} wrote output"
                         f"{f' (and {len(writing) - 1} more reports)' if len(writing) > 1 else ''}"
                         ": profile with --bandwidth (ecluse profile --bandwidth -- ...) to "
                         "measure it")
    host_cpus = args.host_cpus or int(doc.get("cpus") or os.cpu_count() or 1)
    comparisons = val.compare(reports, app, power, options, host_cpus,
                              measured_idle=args.idle_fraction == "measured")
    if args.json:
        doc = dict(val.to_json(comparisons, args.repeats), profile=args.profile,
                   model=options.describe(), power=_power_json(power))
        if args.plots:
            doc["plots"] = val.write_plots(comparisons, args.plots, args.repeats)
        print(json.dumps(doc, indent=2, allow_nan=False))
        return 0
    print(f"validate: {len(reports)} reports against {args.profile}; model: {options.describe()}")
    print(power_line(power))
    for label in sorted({m.energy_label for m in reports}):
        print(f"measured energy: {label}")
    print(val.format_comparisons(comparisons))
    profiled = prof.profile_bytes_per_output(doc)
    _print_if(prof.small_output_note(profiled) or val.output_size_note(reports, profiled))
    _print_if(val.other_load_note(reports))
    print(val.errors_line(comparisons))
    _print_if(val.measured_compute_line(comparisons))
    _print_if(val.measured_speeds_line(comparisons))
    summaries = val.summarize(comparisons, args.repeats)
    if len(summaries) < len(comparisons):
        print(f"per configuration ({args.repeats} of the repeats; sd: standard deviation of the "
              "measured time):")
        print(val.format_summaries(summaries))
        print("per configuration: " + val.errors_line(summaries))
        for line in (val.measured_compute_line(summaries), val.measured_speeds_line(summaries)):
            _print_if(line and "per configuration " + line)
    choices = val.best_choices_by_scenario(comparisons, args.repeats)
    for line in val.format_choices_by_scenario(choices):
        print(line)
    if args.plots:
        for path in val.write_plots(comparisons, args.plots, args.repeats):
            print(f"wrote {path}")
    return 0


def _print_if(line) -> None:
    if line:
        print(line)


def _validate_parser(sub) -> None:
    p = sub.add_parser("validate", help="compare run reports with their predictions")
    p.add_argument("reports", nargs="+", help="run reports (ecluse-report/2, or /1)")
    p.add_argument("--profile", required=True)
    p.add_argument("--iterations", type=positive_int, help="iterations of the runs (default: "
                   "the iterations the report counts)")
    p.add_argument("--output-every", type=positive_int, help="default: the gap between outputs "
                   "(the outputs then are those the report counts)")
    p.add_argument("--host-cpus", type=positive_int, help="CPUs of the host of virtual nodes "
                   "(default: the profile's)")
    p.add_argument("--plots", metavar="DIR", help="write PNG plots into DIR")
    p.add_argument("--json", action="store_true", help="print one JSON document (schema "
                   "ecluse-validate/1: every report, every configuration, the errors, the "
                   "choices) instead of the tables")
    p.add_argument("--repeats", choices=val.STATISTICS, default="mean",
                   help="how the repeats of one configuration are combined: mean (default), or "
                   "median (the statistic of the profile's kept run and of the demo's line)")
    _add_power(p)
    _add_model(p)


# ---------------------------------------------------------------------------------------------
# run


def cmd_run(args) -> int:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise ValueError("give the command to run after --, e.g. ecluse run -- mpiexec -n 4 "
                         "./app config.xml")
    calibration = args.calibration or os.environ.get("ECLUSE_CALIBRATION") or None
    power = resolve_power(args.idle_watts, args.max_watts, calibration, args.power_id)
    return least_cost.run(command, power, model_options(args), args.host_cpus,
                          args.max_dedicated_cores)


def _run_parser(sub) -> None:
    p = sub.add_parser("run", help="run a command; its run summaries end with the approach the "
                       "model predicts would have cost least, and by how much",
                       description="ecluse run [options] -- command ...: the command's output "
                       "passes through; once it ended, one line per run report it wrote")
    p.add_argument("--host-cpus", type=positive_int, help="CPUs of the host of virtual nodes "
                   "(default: this machine's)")
    p.add_argument("--max-dedicated-cores", type=whole, default=2,
                   help="DC(1..K) candidates (2)")
    _add_power(p)
    _add_model(p)
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")


# ---------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ecluse", description="Ecluse's energy model: profile "
                                     "an application, predict and advise an I/O approach, "
                                     "validate against run reports (docs/model.md)")
    sub = parser.add_subparsers(dest="command_name", required=True)
    _profile_parser(sub)
    for name, text in (("predict", "predicted time and energy of TP, DC and DN"),
                       ("advise", "the least-energy and the fastest approach, and why")):
        p = sub.add_parser(name, help=text)
        _platform_parser(p)
        if name == "advise":
            p.add_argument("--goal", choices=("energy", "time"), default="energy")
            p.add_argument("--domains", type=positive_int,
                           help="blocks per client of the simulation (its <domains count>), "
                           "for the <architecture> block; default 1 (--from-report: the run's)")
            form = p.add_mutually_exclusive_group()
            form.add_argument("--xml", action="store_true",
                              help="print only the <architecture> fragment of the recommendation")
            form.add_argument("--json", action="store_true",
                              help="print one JSON document (schema ecluse-advice/1: every "
                              "prediction, the picks, the saving, the inputs, the recommendation "
                              "and its <architecture> block)")
    _validate_parser(sub)
    _run_parser(sub)
    calibrate_parser = sub.add_parser("calibrate", help=calibrate.DESCRIPTION,
                                      description=calibrate.DESCRIPTION)
    calibrate.add_arguments(calibrate_parser)
    return parser


_COMMANDS = {"profile": cmd_profile, "predict": cmd_predict, "advise": cmd_advise,
             "validate": cmd_validate, "run": cmd_run, "calibrate": calibrate.run}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the `ecluse` console script."""
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command_name](args)
    except BrokenPipeError:  # `ecluse advise --json | head`: the reader left, nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:  # a file named by an option: its name and why, not Python's errno
        what = f"{e.filename}: {e.strerror}" if e.filename and e.strerror else str(e)
        print(f"ecluse {args.command_name}: {what}", file=sys.stderr)
        return 2
    except (ValueError, CalibrationError, RuntimeError) as e:
        print(f"ecluse {args.command_name}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
