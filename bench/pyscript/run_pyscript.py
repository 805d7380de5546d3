"""The cost of <pyscript>s on the servers, side by side in one run (issue 17's goal): the example
simulation (C) on 2 dedicated cores (2 virtual nodes of 2 clients + 1 server), its temperature
given to a trivial script, to a script that reads every block, or to no script, with the null
store so that the servers' store phase (which runs the scripts, docs/report.md) is the scripts'
own cost; then, with a local Dask scheduler, each server's worker start time and the time to
assemble the global dask.array each iteration (ecluse.insitu.dask_array), and to sum it.

Usage: python bench/pyscript/run_pyscript.py [iterations]   (prints JSON; about 30 s)
Needs the build (ECLUSE_BUILD) with libecluse_python, and dask/distributed in the venv."""
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
sys.path.insert(0, str(ROOT / "tests" / "python"))
from mpirun import child_env, mpiexec  # noqa: E402

SCRIPTS = {
    "trivial": "def main(DD):\n    pass\n",
    "read_every_block": ("def main(DD):\n    for v in DD['iteration_data'].values():\n"
                         "        if isinstance(v, dict):\n"
                         "            for a in v['numpy_data'].values(): a.sum()\n"),
    "dask": '''
import json, time
from ecluse import insitu, _insitu_runtime
def main(DD):
    comm = insitu.server_comm()
    start = time.perf_counter()
    x = insitu.dask_array(DD, "temperature")
    assembled = time.perf_counter() - start
    total = None
    if x is not None:
        start = time.perf_counter()
        x.sum().compute()
        total = time.perf_counter() - start
    with open(f"dask-{comm.Get_rank()}.jsonl", "a") as f:
        f.write(json.dumps({"iteration": insitu.iteration(DD), "assembly_s": assembled,
                            "sum_s": total,
                            "worker_start_s": _insitu_runtime.state().worker.start_seconds}) + "\\n")
''',
}


def config(script, scheduler=None):
    text = (ROOT / "examples" / "simulation.xml").read_text()
    text = text.replace('<dedicated cores="0" nodes="0"/>',
                        '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="3"/>')
    text = text.replace('<store name="files" type="HDF5">', '<store name="files" type="null">')
    text = text.replace('<store name="shared" type="HDF5">', '<store name="shared" type="null">')
    text = text.replace('<option key="FileMode">FilePerCore</option>', "")
    text = text.replace('<option key="FileMode">Collective</option>', "")
    text = text.replace('<option key="FilesPath">out/per-process</option>', "")
    text = text.replace('<option key="FilesPath">out/collective</option>', "")
    if script is None:
        return text
    extra = f' scheduler-file="{scheduler}" timeout="60"' if scheduler else ""
    text = text.replace('store="files,shared"/>', 'store="files,shared" script="s"/>')
    return text.replace("</storage>", f'</storage><scripts><pyscript name="s" file="s.py"'
                                      f'{extra}/></scripts>')


def run(directory, script, iterations, scheduler=None):
    directory.mkdir()
    (directory / "simulation.xml").write_text(config(script, scheduler))
    if script:
        (directory / "s.py").write_text(SCRIPTS[script])
    started = time.perf_counter()
    result = subprocess.run([mpiexec(), "-n", "6", str(BUILD / "examples" /
                                                       "ecluse_example_simulation"),
                             "simulation.xml", str(iterations)], cwd=directory, env=child_env(),
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"{script}: {result.stderr}")
    report = json.loads((directory / "heat-report.json").read_text())
    store = report["roles"]["dedicated-core"]["phases"]["store"]["wall_s"]
    return {"store_phase_s": store, "run_s": time.perf_counter() - started}


def summary(values):
    return {"count": len(values), "mean": statistics.fmean(values),
            "p50": statistics.median(values), "max": max(values), "min": min(values)}


def dask_run(directory, iterations):
    scheduler_dir = directory / "scheduler"
    scheduler_dir.mkdir()
    path = scheduler_dir / "scheduler.json"
    dask = pathlib.Path(sys.executable).parent / "dask"
    process = subprocess.Popen([str(dask), "scheduler", "--scheduler-file", str(path),
                                "--no-dashboard", "--port", "0", "--host", "127.0.0.1"],
                               cwd=scheduler_dir, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        while not path.exists():
            time.sleep(0.1)
        figures = run(directory / "dask", "dask", iterations, scheduler=path)
    finally:
        process.terminate()
        process.wait(30)
    lines = [json.loads(line) for p in (directory / "dask").glob("dask-*.jsonl")
             for line in p.read_text().splitlines()]
    return dict(figures,
                worker_start_s=summary([x["worker_start_s"] for x in lines
                                        if x["iteration"] == 0]),
                assembly_s=summary([x["assembly_s"] for x in lines]),
                sum_s=summary([x["sum_s"] for x in lines if x["sum_s"] is not None]))


def main():
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    servers = 2
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        runs = {name: run(tmp / (name or "none"), name, iterations)
                for name in (None, "trivial", "read_every_block")}
        base = runs[None]["store_phase_s"]
        per_iteration = {name: (runs[name]["store_phase_s"] - base) / (iterations * servers)
                         for name in ("trivial", "read_every_block")}
        result = {
            "bench": "pyscript", "iterations": iterations, "servers": servers,
            "clients": 4, "block_bytes": 8 * 18 * 50,  # 16 rows + 2 ghosts by 48 + 2
            "store_phase_s": {name or "none": r["store_phase_s"] for name, r in runs.items()},
            "script_overhead_per_iteration_s": per_iteration,
            "dask": dask_run(tmp, iterations),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
