"""Compression benchmark on the CM1-like proxy's fields: per method, the compression ratio, the
store's throughput under time partitioning, the largest errors against an independent NumPy run,
and the simulation's iteration time with dedicated cores (1 client + 1 dedicated core) with the
compression on against off, next to time partitioning with the same compression, in one run.

Usage: python bench/compression/run.py [--local 48x48x32] [--iterations 100] [--output-every 25]
       [--repeat 3] [--out FILE]     (prints one JSON document; ECLUSE_BUILD names the build)
"""
import argparse
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import h5py
import hdf5plugin  # noqa: F401  (registers H5Z-ZFP, filter 32013, with h5py)
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
VARIABLES = ["temperature", "pressure", "u", "v", "w", "qv"]
METHODS = {
    "none": {},
    "deflate": {"CompressionLevel": "1", "Shuffle": "yes"},
    "half": {},
    "scaled16": {},
    "zfp": {"ZfpMode": "accuracy", "ZfpValue": "1e-3"},
}

spec = importlib.util.spec_from_file_location("check_proxy", ROOT / "apps/proxy/check_output.py")
check_proxy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_proxy)


def mpiexec():
    return os.environ.get("ECLUSE_MPIEXEC") or shutil.which("mpiexec.openmpi") or "mpiexec"


def config_text(approach, method):
    options = {"FileMode": "Collective", "Compression": method, **METHODS[method]}
    xml = "".join(f'<option key="{k}">{v}</option>' for k, v in options.items())
    text = (ROOT / "apps/proxy" / f"proxy-{approach}.xml").read_text()
    return text.replace('<option key="FileMode">Collective</option>', xml)


def run_proxy(workdir, approach, method, args):
    """One run; returns the proxy's JSON summary."""
    ranks = {"tp": 1, "dc": 2}[approach]
    (workdir / "proxy.xml").write_text(config_text(approach, method))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    command = [mpiexec(), "-n", str(ranks), str(BUILD / "apps/proxy/ecluse_proxy"), "--config",
               "proxy.xml", "--local", args.local, "--iterations", str(args.iterations),
               "--output-every", str(args.output_every), "--variables", ",".join(VARIABLES)]
    result = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True,
                            timeout=300)
    if result.returncode != 0:
        sys.exit(f"{approach}/{method} failed:\n{result.stdout}{result.stderr}")
    return json.loads([line for line in result.stdout.splitlines() if line.startswith("{")][0])


def stored_values(dataset):
    data = dataset[...]
    if dataset.attrs.get("compression") in ("scaled16", b"scaled16"):
        return dataset.attrs["scale_offset"] + data.astype(np.float64) * dataset.attrs["scale_factor"]
    return data.astype(np.float64)


def measure_files(out, args):
    """Bytes stored, raw bytes and the largest errors over every output file."""
    stored = raw = 0
    max_abs = max_rel = max_rel_range = 0.0
    files = sorted(out.glob("proxy_It*.h5"))
    with h5py.File(files[0], "r") as f:
        fields = check_proxy.initial_fields(f[VARIABLES[0]].shape)
    for it in range(args.iterations):
        fields = check_proxy.step(fields)
        if (it + 1) % args.output_every:
            continue
        with h5py.File(out / f"proxy_It{it}.h5", "r") as f:
            for name in VARIABLES:
                want = fields[check_proxy.NAMES.index(name)]
                got = stored_values(f[name])
                stored += f[name].id.get_storage_size()
                raw += want.nbytes
                error = np.abs(got - want)
                max_abs = max(max_abs, float(error.max()))
                max_rel = max(max_rel, float((error / np.maximum(np.abs(want), 1e-300)).max()))
                spread = max(float(want.max() - want.min()), 1e-300)
                max_rel_range = max(max_rel_range, float(error.max()) / spread)
    return stored, raw, max_abs, max_rel, max_rel_range


def best_of(args, approach, method, keep=None):
    """The fastest of --repeat runs (each in a fresh directory); keep(out) sees the last one."""
    best = None
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="ecluse-bench-compression-") as tmp:
            summary = run_proxy(pathlib.Path(tmp), approach, method, args)
            if keep is not None:
                keep(pathlib.Path(tmp) / "out" / "proxy")
        if best is None or summary["wall_time_s"] < best["wall_time_s"]:
            best = summary
    return best


def measure(args, method):
    files = {}
    tp = best_of(args, "tp", method, keep=lambda out: files.update(m=measure_files(out, args)))
    dc = best_of(args, "dc", method)
    stored, raw, max_abs, max_rel, max_rel_range = files["m"]
    outputs = tp["outputs"]
    return {
        "ratio": raw / stored,
        "tp_store_MBps": raw / outputs / tp["write_time_mean_s"] / 1e6,
        "max_abs_error": max_abs,
        "max_rel_error": max_rel,  # pointwise: large where a field crosses zero
        "max_error_over_range": max_rel_range,  # the error over the field's max - min
        "tp_iteration_s": tp["wall_time_s"] / tp["iterations"],
        "dc_iteration_s": dc["wall_time_s"] / dc["iterations"],
        "dc_client_write_s": dc["write_time_mean_s"],
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local", default="48x48x32")
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--output-every", type=int, default=25)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    started = time.time()
    results = {method: measure(args, method) for method in METHODS}
    for method, r in results.items():
        r["dc_iteration_vs_none"] = r["dc_iteration_s"] / results["none"]["dc_iteration_s"]
        r["tp_iteration_vs_none"] = r["tp_iteration_s"] / results["none"]["tp_iteration_s"]
        r["dc_vs_tp_same_method"] = r["dc_iteration_s"] / r["tp_iteration_s"]
    document = {
        "benchmark": "compression",
        "workload": {"app": "ecluse_proxy", "local": args.local, "iterations": args.iterations,
                     "output_every": args.output_every, "variables": VARIABLES,
                     "repeat": args.repeat, "file_mode": "Collective",
                     "tp_ranks": 1, "dc_ranks": "1 client + 1 dedicated core"},
        "options": METHODS,
        "methods": results,
        "bench_seconds": time.time() - started,
    }
    text = json.dumps(document, indent=2)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
