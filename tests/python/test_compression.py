"""The HDF5 store's compression on the CM1-like proxy under time partitioning, dedicated cores
and dedicated nodes: every value read back with h5py (hdf5plugin for zfp) against an independent
NumPy run of the same stencil: deflate bit for bit, half, scaled16 and zfp within their bounds."""
import importlib.util
import os
import pathlib
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from mpirun import child_env, mpiexec

hdf5plugin = pytest.importorskip("hdf5plugin")  # registers H5Z-ZFP (id 32013) with h5py

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
APPROACHES = {"tp": 4, "dc": 3, "dn": 4}  # ranks, as in test_apps.py
VARIABLES = ["temperature", "u", "qv"]
ITERATIONS = 2
ZFP_ACCURACY = 1e-4

spec = importlib.util.spec_from_file_location("check_proxy", ROOT / "apps/proxy/check_output.py")
check_proxy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_proxy)


def options_xml(method, mode, zfp=("accuracy", ZFP_ACCURACY)):
    options = {"FileMode": mode, "Compression": method, "ChunkSize": "2048"}
    if method == "zfp":
        options.update(ZfpMode=zfp[0], ZfpValue=str(zfp[1]))
    return "".join(f'<option key="{k}">{v}</option>' for k, v in options.items())


def run_proxy(tmp_path, approach, method, mode="Collective", **zfp):
    config = (ROOT / "apps/proxy" / f"proxy-{approach}.xml").read_text()
    config = config.replace('<option key="FileMode">Collective</option>',
                            options_xml(method, mode, **zfp))
    (tmp_path / "proxy.xml").write_text(config)
    program = BUILD / "apps/proxy/ecluse_proxy"
    assert program.exists(), f"{program} is not built"
    result = subprocess.run(
        [mpiexec(), "-n", str(APPROACHES[approach]), str(program), "--config", "proxy.xml",
         "--local", "6x5x4", "--iterations", str(ITERATIONS), "--output-every", "1",
         "--variables", ",".join(VARIABLES)],
        cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return tmp_path / "out" / "proxy"


def expected_fields(shape):
    """The fields after each iteration, by iteration."""
    fields = check_proxy.initial_fields(shape)
    by_iteration = []
    for _ in range(ITERATIONS):
        fields = check_proxy.step(fields)
        by_iteration.append({n: fields[check_proxy.NAMES.index(n)] for n in VARIABLES})
    return by_iteration


def decoded(dataset):
    """The values of a dataset as a reader restores them (scaled16: offset + code * factor)."""
    method = dataset.attrs["compression"].decode() if isinstance(
        dataset.attrs["compression"], bytes) else dataset.attrs["compression"]
    data = dataset[...]
    if method == "scaled16":
        codes = data.astype(np.float64)
        values = dataset.attrs["scale_offset"] + codes * dataset.attrs["scale_factor"]
        return method, np.where(data == dataset.attrs["scale_nonfinite_code"], np.nan, values)
    return method, data.astype(np.float64)


def assert_within(method, got, want, where, factor=None):
    if method == "deflate":
        assert np.array_equal(got, want), f"{where}: not bit for bit"
    elif method == "half":
        assert np.all(np.abs(got - want) <= 2.0**-11 * np.abs(want)), where
    elif method == "scaled16":
        assert np.all(np.abs(got - want) <= factor / 2 * (1 + 1e-9)), where
    else:
        assert np.all(np.abs(got - want) <= ZFP_ACCURACY), where


def check_collective(out, method):
    files = sorted(out.glob("proxy_It*.h5"))
    assert len(files) == ITERATIONS and not list(out.glob("*.part"))
    with h5py.File(files[0], "r") as f:
        shape = f[VARIABLES[0]].shape
    for it, want in enumerate(expected_fields(shape)):
        with h5py.File(out / f"proxy_It{it}.h5", "r") as f:
            for name in VARIABLES:
                applied, got = decoded(f[name])
                assert applied == method
                if method == "half":
                    assert f[name].dtype == np.float16
                assert_within(method, got, want[name], f"It{it}/{name}",
                              f[name].attrs.get("scale_factor"))


@pytest.mark.parametrize("approach", APPROACHES)
@pytest.mark.parametrize("method", ["deflate", "half", "scaled16", "zfp"])
def test_collective_files_hold_every_value_within_the_bound(tmp_path, approach, method):
    check_collective(run_proxy(tmp_path, approach, method), method)


def assemble(files, name, shape):
    """A global field from the per-block datasets of FilePerCore or FilePerNode files."""
    field = np.full(shape, np.nan)
    factors = []
    for path in files:
        with h5py.File(path, "r") as f:
            for block in f[name].values():
                method, values = decoded(block)
                at = block.attrs["global_offset"]
                field[tuple(slice(a, a + n) for a, n in zip(at, values.shape))] = values
                factors.append(block.attrs.get("scale_factor", 0.0))
    return method, field, max(factors)


@pytest.mark.parametrize("mode,pattern", [("FilePerCore", "_Pr"), ("FilePerNode", "_Node")])
@pytest.mark.parametrize("method", ["scaled16", "zfp"])
def test_per_block_files_under_dedicated_cores(tmp_path, mode, pattern, method):
    out = run_proxy(tmp_path, "dc", method, mode)
    shape = (12, 5, 4)  # 2 clients side by side in x: see check_proxy's process grid
    for it, want in enumerate(expected_fields(shape)):
        files = sorted(out.glob(f"proxy_It{it}{pattern}*.h5"))
        assert files, sorted(out.iterdir())
        for name in VARIABLES:
            applied, got, factor = assemble(files, name, shape)
            assert applied == method and not np.isnan(got).any()
            assert_within(method, got, want[name], f"It{it}/{name}", factor)


def test_zfp_rate_mode_stores_exactly_the_rate(tmp_path):
    """Rate 16 on 6x5x4 chunks: 2x2x1 zfp blocks of 64 values at 16 bits, 512 bytes a chunk."""
    out = run_proxy(tmp_path, "tp", "zfp", zfp=("rate", 16))
    with h5py.File(out / "proxy_It0.h5", "r") as f:
        want = expected_fields(f["u"].shape)[0]
        for name in VARIABLES:
            d = f[name]
            assert d.chunks == (6, 5, 4) and d.id.get_create_plist().get_filter(0)[0] == 32013
            assert d.id.get_storage_size() == 4 * 512  # 4 chunks on the 2x2 process grid
            spread = np.ptp(want[name])
            assert np.abs(d[...] - want[name]).max() <= 1e-3 * spread, name


def test_zfp_precision_mode_is_read_by_hdf5plugin(tmp_path):
    out = run_proxy(tmp_path, "dc", "zfp", zfp=("precision", 32))
    with h5py.File(out / "proxy_It1.h5", "r") as f:
        want = expected_fields(f["u"].shape)[1]
        for name in VARIABLES:
            scale = np.abs(want[name]).max()
            assert np.abs(f[name][...] - want[name]).max() <= 1e-6 * scale, name
