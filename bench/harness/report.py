"""The harness's report: report.md (tables per workload, ratios to Ecluse TP) and PNG plots
(matplotlib, Agg backend, so that it runs without a display)."""
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

NO_REPORT = "report not available"


def fmt(value, scale=1.0, digits=2):
    return "—" if value is None else f"{value * scale:.{digits}f}"


def params_label(parameters):
    short = {"local": "", "global": "global ", "variables": "v", "output_every": "every ", "iterations": "it ",
             "block": "", "particles": "n=", "steps": "steps "}
    return " ".join(f"{short.get(k, k + '=')}{v}" for k, v in parameters.items())


def config_label(entry):
    return f"r{entry['ranks']} {params_label(entry['parameters'])}"


def roles_text(entry):
    roles = entry["cpu_percent_by_role"]
    if not roles:
        return NO_REPORT if entry["approach"].startswith("ecluse") else "n/a (no Ecluse)"
    return ", ".join(f"{role} {value:.0f}" for role, value in roles.items())


def energy_text(entry):
    joules = entry["median"]["energy_j"]
    if joules is None:
        return NO_REPORT if entry["approach"].startswith("ecluse") else "n/a (no Ecluse)"
    return f"{joules:.1f} ({entry['energy_source']}, {entry['energy_quality']})"


TABLE_HEAD = ("| approach | ranks (clients) | completion s | vs TP | write mean / max ms | "
              "jitter ms | MB/s | job CPU % | CPU % per role | energy J (source, quality) | "
              "avg W | MB/s/W |\n|---|---|---|---|---|---|---|---|---|---|---|---|")


def table_row(entry):
    m, versus_tp = entry["median"], entry["ratio_to_tp"].get("completion_time_s")
    return (f"| {entry['approach']} | {entry['ranks']} ({entry['clients']}) | "
            f"{fmt(m['completion_time_s'])} | {fmt(versus_tp)} | "
            f"{fmt(m['write_time_mean_s'], 1e3)} / {fmt(m['write_time_max_s'], 1e3)} | "
            f"{fmt(m['write_jitter_s'], 1e3)} | {fmt(m['throughput_mb_s'])} | "
            f"{fmt(m['job_cpu_percent'], digits=0)} | {roles_text(entry)} | {energy_text(entry)} | "
            f"{fmt(m['average_power_w'], digits=1)} | {fmt(m['mb_s_per_w'], digits=4)} |")


def configurations(aggregates, workload):
    """The workload's configurations in matrix order, each with its entries per approach."""
    groups = {}
    for entry in aggregates:
        if entry["workload"] == workload:
            groups.setdefault(config_label(entry), []).append(entry)
    return groups


def workload_section(aggregates, workload):
    lines = [f"## {workload}", ""]
    for label, entries in configurations(aggregates, workload).items():
        lines += [f"### {workload}: {label}", "", TABLE_HEAD]
        lines += [table_row(e) for e in entries]
        lines.append("")
    return lines


def machine_section(document):
    m = document["machine"]
    lines = ["## Machine", "",
             f"{m['cores']} cores ({m['cpu_model']}), {m['memory_bytes'] / 2**30:.1f} GiB, "
             f"Linux {m['kernel']}, {m['mpi_version']}; load average {m['loadavg_at_start']:.2f} "
             "at the start."]
    if m.get("free_page_reporting"):
        lines[-1] += f" Memory: {m['free_page_reporting']}."
    if m["oversubscribed"]:
        lines.append(f"**Oversubscribed**: runs of up to {m['max_ranks']} ranks on {m['cores']} "
                     "cores (each run says whether it was), so ranks share cores and the "
                     "figures measure that sharing too.")
    return lines + [""]


def approaches_section(document):
    lines = ["## Approaches", "", "| approach | available | notes |", "|---|---|---|"]
    for name, a in document["approaches"].items():
        status = "yes" if a["available"] else f"**unavailable**: {a['reason']}"
        lines.append(f"| {name} | {status} | {a['notes']} |")
    return lines + [""]


def problems_section(document):
    failed = [r for r in document["runs"] if r["status"] == "failed"]
    lines = []
    if failed:
        lines += ["## Failed runs", ""] + [f"- `{r['id']}`: {r['error'][:300]}" for r in failed]
        lines.append("")
    if document["skipped"]:
        lines += ["## Not run", ""]
        lines += [f"- {s['workload']} {s['approach']} ranks={s['ranks']} "
                  f"{params_label(s['parameters'])}: {s['reason']}" for s in document["skipped"]]
        lines.append("")
    return lines


def markdown(document, plots):
    lines = [f"# Ecluse side-by-side benchmark ({document['matrix']} matrix)", "",
             f"{document['created']}, {document['repetitions']} repetition(s), "
             f"{len(document['runs'])} runs in {document['duration_s']:.0f} s. Figures are medians "
             "over the repetitions; `vs TP` is the ratio to Ecluse TP of the same workload, "
             "parameters and ranks, measured side by side in this run.", "",
             document["report_note"], ""]
    lines += machine_section(document) + approaches_section(document)
    for workload in dict.fromkeys(a["workload"] for a in document["aggregates"]):
        lines += workload_section(document["aggregates"], workload)
    lines += problems_section(document)
    lines += ["## Plots", ""] + [f"![{p.stem}]({p.name})" for p in plots]
    return "\n".join(lines) + "\n"


def placeholder(axis, text):
    axis.text(0.5, 0.5, text, ha="center", va="center", transform=axis.transAxes)
    axis.set_xticks([])
    axis.set_yticks([])


def approaches_with_values(groups, value_of):
    """The approaches that have a value in some configuration: no empty slot for the others."""
    entries = [e for es in groups.values() for e in es if value_of(e) is not None]
    return list(dict.fromkeys(e["approach"] for e in entries))


def grouped_bars(axis, groups, value_of, error_of=None, label_of=None):
    """Bars grouped by configuration, one colour per approach; False when nothing to draw."""
    approaches = approaches_with_values(groups, value_of)
    width = 0.8 / max(len(approaches), 1)
    drawn = False
    for i, approach in enumerate(approaches):
        xs, ys, errors, labels = [], [], [], []
        for x, entries in enumerate(groups.values()):
            entry = next((e for e in entries if e["approach"] == approach), None)
            value = value_of(entry) if entry else None
            if value is None:
                continue
            xs.append(x + (i - (len(approaches) - 1) / 2) * width)
            ys.append(value)
            errors.append((error_of(entry) or 0) if error_of else 0)
            labels.append(label_of(entry) if label_of else None)
        if not xs:
            continue
        drawn = True
        bars = axis.bar(xs, ys, width, label=approach,
                        yerr=[[0] * len(errors), errors] if error_of else None, capsize=2)
        if label_of:
            axis.bar_label(bars, labels=labels, fontsize=6, rotation=90, padding=2)
            axis.margins(y=0.6)  # room for the labels above the highest bar
    axis.set_xticks(range(len(groups)), list(groups), rotation=30, ha="right", fontsize=7)
    return drawn


def figure(path, title, ylabel, aggregates, value_of, error_of=None, label_of=None,
           missing=NO_REPORT):
    """One PNG: a panel per workload; a panel with no value says why instead of staying blank."""
    workloads = list(dict.fromkeys(a["workload"] for a in aggregates)) or ["none"]
    fig, axes = plt.subplots(1, len(workloads), figsize=(5.5 * len(workloads), 4.2), squeeze=False)
    for axis, workload in zip(axes[0], workloads):
        axis.set_title(workload, fontsize=9)
        if grouped_bars(axis, configurations(aggregates, workload), value_of, error_of, label_of):
            axis.set_ylabel(ylabel, fontsize=8)
            axis.legend(fontsize=6)
        else:
            placeholder(axis, missing)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def cpu_figure(path, aggregates):
    """CPU % per role (from the run report) beside the whole job's CPU % (from the launcher)."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    entries = [a for a in aggregates if a["cpu_percent_by_role"]]
    if entries:
        roles = list(dict.fromkeys(r for a in entries for r in a["cpu_percent_by_role"]))
        labels = [f"{a['approach']}\n{a['workload']} {config_label(a)}" for a in entries]
        width = 0.8 / len(roles)
        for i, role in enumerate(roles):
            values = [a["cpu_percent_by_role"].get(role, 0) for a in entries]
            axes[0].bar([x + i * width for x in range(len(entries))], values, width, label=role)
        axes[0].set_xticks(range(len(entries)), labels, rotation=30, ha="right", fontsize=6)
        axes[0].set_ylabel("CPU % (100 = one core busy, per rank)", fontsize=8)
        axes[0].legend(fontsize=6)
    else:
        placeholder(axes[0], NO_REPORT)
    axes[0].set_title("CPU usage per role (Ecluse run report)", fontsize=9)
    jobs = [a for a in aggregates if a["median"]["job_cpu_percent"] is not None]
    axes[1].bar(range(len(jobs)), [a["median"]["job_cpu_percent"] for a in jobs])
    axes[1].set_xticks(range(len(jobs)), [f"{a['approach']} {a['workload']} {config_label(a)}"
                                          for a in jobs], rotation=60, ha="right", fontsize=5)
    axes[1].set_title("whole job: CPU time / (completion x ranks), from the launcher", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def energy_label(entry):
    return f"{entry['energy_source']}/{entry['energy_quality']}"


def plots(aggregates, out_dir):
    """Writes the PNG plots; returns their paths."""
    out = pathlib.Path(out_dir)
    m = (lambda name: (lambda e: e["median"][name]))
    ms = (lambda name: (lambda e: None if e["median"][name] is None else e["median"][name] * 1e3))
    return [
        figure(out / "completion_time.png", "Completion time (launch to exit)", "s",
               aggregates, m("completion_time_s"), missing="no run"),
        figure(out / "write_time.png", "Client-visible write time per output: mean, bar to max "
               "(jitter)", "ms", aggregates,
               ms("write_time_mean_s"), error_of=ms("write_jitter_s"), missing="no run"),
        figure(out / "throughput.png", "Aggregate throughput (bytes written / completion time)",
               "MB/s", aggregates, m("throughput_mb_s"), missing="no run"),
        cpu_figure(out / "cpu_per_role.png", aggregates),
        figure(out / "energy.png", "Energy of the run, labelled with its source/quality", "J",
               aggregates, m("energy_j"), label_of=energy_label),
        figure(out / "average_power.png", "Average power", "W", aggregates, m("average_power_w"),
               label_of=energy_label),
        figure(out / "io_per_watt.png", "I/O rate per Watt", "MB/s/W", aggregates,
               m("mb_s_per_w")),
    ]


def write(document, out_dir):
    """Writes the plots and report.md into out_dir; returns the path of report.md."""
    paths = plots(document["aggregates"], out_dir)
    report = pathlib.Path(out_dir) / "report.md"
    report.write_text(markdown(document, paths))
    return report
