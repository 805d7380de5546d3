"""The accuracy table in Markdown: one row per output interval and configuration (repeats
averaged), from the profile and the run reports, with the same model as `ecluse validate`
(extended, the profile's power, the profile's CPU count for virtual nodes); then whether the
advisor's least-energy pick is the measured one, judged against the repeats' noise, and the
errors against the goals of issue 15 (mean <= 5%, worst <= 10%). Beside each time error: the
runs' compute phase against the model's ("speed") and the time error with the runs' own compute
phase in place of the model's (validate.error_at_measured_compute), then with their store (and
copy) speeds too ("store": the runs' store time per output against the model's): what separates
the model's structure from the machine's and the file system's speed on the day.

    table.py PROFILE REPORT... [--app NAME]
"""
import os
import statistics
import sys

from ecluse import profile as prof
from ecluse import validate as val
from ecluse.model import ModelOptions


def sd(values):
    return statistics.stdev(values) if len(values) > 1 else 0.0


def signed(value):
    return f"{value:+.1%}" if value is not None else "-"


def energy_stats(comparisons):
    """Per (scenario, configuration): (mean measured energy, its standard deviation)."""
    groups = {}
    for c in comparisons:
        if c.measured.energy_j:
            groups.setdefault((c.scenario, c.label or c.measured.label()), []).append(
                c.measured.energy_j)
    return {k: (statistics.mean(v), sd(v)) for k, v in groups.items()}


def pick_verdict(scenario, summaries, energies):
    """The predicted least-energy configuration against the measured one: right, wrong within
    the noise (the two measured means closer than the sum of their standard deviations), or
    WRONG; with the measured gap and the noise."""
    rows = [s for s in summaries if s.scenario == scenario]
    pred = min(rows, key=lambda s: (round(s.energy_pred_j, 9), s.time_pred_s)).label
    meas = min(rows, key=lambda s: energies[(scenario, s.label)][0]).label
    (e_best, sd_best), (e_pick, sd_pick) = energies[(scenario, meas)], energies[(scenario, pred)]
    gap, noise = e_pick / e_best - 1, (sd_best + sd_pick) / e_best
    if pred == meas:
        verdict = "right"
    elif gap <= noise:
        verdict = "wrong, within noise"
    else:
        verdict = "WRONG"
    return pred, meas, gap, noise, verdict


def goal_line(name, errors):
    errors = [abs(e) for e in errors if e is not None]
    if not errors:
        return f"{name}: no figures"
    mean, worst = statistics.mean(errors), max(errors)
    met = "met" if mean <= 0.05 and worst <= 0.10 else "NOT met"
    return f"{name}: mean {mean:.1%}, worst {worst:.1%} (goal mean <= 5%, worst <= 10%: {met})"


def main(profile_path, report_paths, app="proxy"):
    doc = prof.load_profile(profile_path)
    comparisons = val.compare([val.read_report(p) for p in report_paths], prof.app_model(doc),
                              prof.profile_power(doc), ModelOptions.extended(),
                              int(doc.get("cpus") or os.cpu_count() or 1))
    summaries = val.summarize(comparisons)
    energies = energy_stats(comparisons)
    print("| app | output every | configuration | runs | time measured s (sd) | time predicted s "
          "| time error | speed | time error at measured compute | store | time error at "
          "measured compute and store | energy measured J (sd) | energy predicted J "
          "| energy error |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in summaries:
        e_mean, e_sd = energies.get((s.scenario, s.label), (None, None))
        e_meas = f"{e_mean:.1f} ({e_sd:.1f})" if e_mean else "-"
        e_err = f"{s.energy_error:+.1%}" if s.energy_error is not None else "-"
        speed = f"{s.compute_speed:.2f}" if s.compute_speed else "-"
        store = f"{s.store_speed:.2f}" if s.store_speed else "-"
        print(f"| {app} | {s.scenario[1]} | {s.label} | {s.runs} | {s.time_meas_s:.3f} "
              f"({s.time_sd_s:.3f}) | {s.time_pred_s:.3f} | {s.time_error:+.1%} | {speed} "
              f"| {signed(s.time_error_at_measured_compute)} | {store} "
              f"| {signed(s.time_error_at_measured_speeds)} | {e_meas} | {s.energy_pred_j:.1f} "
              f"| {e_err} |")
    print()
    print("| app | output every | least energy: predicted / measured | measured gap | noise "
          "(sd sum) | verdict |")
    print("|---|---:|---|---:|---:|---|")
    for scenario in sorted({s.scenario for s in summaries}):
        pred, meas, gap, noise, verdict = pick_verdict(scenario, summaries, energies)
        print(f"| {app} | {scenario[1]} | {pred} / {meas} | {gap:+.1%} | {noise:.1%} | "
              f"{verdict} |")
    print()
    print(goal_line("time error", [s.time_error for s in summaries]))
    print(goal_line("energy error", [s.energy_error for s in summaries]))
    for line in (val.measured_compute_line(summaries), val.measured_speeds_line(summaries)):
        if line:
            print(line)
    noise = [s.time_sd_s / s.time_meas_s for s in summaries if s.runs > 1]
    if noise:
        print(f"run-to-run noise (time sd / mean): mean {statistics.mean(noise):.1%}, "
              f"worst {max(noise):.1%}")


if __name__ == "__main__":
    args = sys.argv[1:]
    name = "proxy"
    if "--app" in args:
        i = args.index("--app")
        name = args[i + 1]
        del args[i:i + 2]
    main(args[0], args[1:], name)
