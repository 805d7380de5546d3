"""The accuracy table in Markdown: one row per output interval and configuration (repeats
averaged), from the profile and the run reports, with the same model as `ecluse validate`
(extended, the profile's power, the profile's CPU count for virtual nodes)."""
import os
import sys

from ecluse import profile as prof
from ecluse import validate as val
from ecluse.model import ModelOptions


def main(profile_path, report_paths):
    doc = prof.load_profile(profile_path)
    comparisons = val.compare([val.read_report(p) for p in report_paths], prof.app_model(doc),
                              prof.profile_power(doc), ModelOptions.extended(),
                              int(doc.get("cpus") or os.cpu_count() or 1))
    summaries = val.summarize(comparisons)
    picks = dict(val.best_choices_by_scenario(comparisons))
    print("| output every | configuration | runs | time measured s (sd) | time predicted s "
          "| time error | energy measured J | energy predicted J | energy error |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for s in summaries:
        e_meas = f"{s.energy_meas_j:.1f}" if s.energy_meas_j else "-"
        e_err = f"{s.energy_error:+.1%}" if s.energy_error is not None else "-"
        print(f"| {s.scenario[1]} | {s.label} | {s.runs} | {s.time_meas_s:.3f} ({s.time_sd_s:.3f}) "
              f"| {s.time_pred_s:.3f} | {s.time_error:+.1%} | {e_meas} | {s.energy_pred_j:.1f} "
              f"| {e_err} |")
    print()
    print("| output every | fastest: predicted / measured | least energy: predicted / measured |")
    print("|---:|---|---|")
    for scenario, choice in picks.items():
        cells = []
        for key in ("fastest", "least energy"):
            pred, meas = choice.get(key, ("-", "-"))
            cells.append(f"{pred} / {meas} ({'right' if pred == meas else 'WRONG'})")
        print(f"| {scenario[1]} | {cells[0]} | {cells[1]} |")
    print()
    print(val.config_summary_line(summaries) + " (per configuration, repeats averaged)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
