"""Random end-to-end cases of the data path: each case draws an approach (TP, DC, DN) and its
placement (virtual nodes, servers first or last), one or two HDF5 stores (file mode, deflate or
none, chunk size), a number of domains, and variables of every type (the unsigned ones holding
values above the signed maximum) with 1 to 3 dimensions, ghost zones, Fortran order,
parameters in their sizes (changed by clients between iterations), groups, constant
(time-varying="false") variables, positions, and writes of three kinds (a copy, a
non-contiguous view, alloc + commit), at random iterations and blocks; then reads every
file back and requires exactly the datasets the writes call for, bit for bit, and nothing else,
and a complete run report.

The cases are drawn from a fixed seed, so CI is repeatable; ECLUSE_RANDOM_SEED=<n> replays
other cases and ECLUSE_RANDOM_SEED=random draws a new seed (printed in every failure, with the
case's directory). ECLUSE_RANDOM_CASES=<n> runs more of them (a soak test):

    ECLUSE_RANDOM_SEED=random ECLUSE_RANDOM_CASES=200 \
        .venv/bin/python -m pytest tests/python/test_random_writes.py -x
"""
import json
import os
import pathlib
import random
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from mpirun import BUILD, child_env, datasets_of, mpiexec  # noqa: E402
from random_writes_values import DTYPES, block_values  # noqa: E402

pytestmark = pytest.mark.skipif(
    not list((BUILD / "python" / "ecluse").glob("_native*.so")),
    reason=f"the native module was not built in {BUILD} (needs nanobind in the venv)")

_SEED = os.environ.get("ECLUSE_RANDOM_SEED", "20261128")
SEED = random.SystemRandom().randrange(1 << 30) if _SEED == "random" else int(_SEED)
CASES = int(os.environ.get("ECLUSE_RANDOM_CASES", "12"))
MOST_RANKS = 6
SIMULATION = "rnd"


# ---- drawing a case -------------------------------------------------------------------------

def draw_architecture(rng):
    """(approach, ranks, ranks per node, clients, <architecture> children)."""
    while True:
        approach = rng.choice(["tp", "dc", "dn"])
        if approach == "tp":
            ranks = rng.randint(1, 4)
            per_node = rng.choice([ranks, 1, 2])
            return approach, ranks, per_node, ranks, '<dedicated cores="0" nodes="0"/>'
        if approach == "dc":
            nodes, cores = rng.randint(1, 2), rng.randint(1, 2)
            clients = rng.randint(cores, 3)  # every dedicated core serves a client at least
            per_node = clients + cores
            if nodes * per_node > MOST_RANKS:
                continue
            first = '<placement servers="first"/>' if rng.random() < 0.3 else ""
            return (approach, nodes * per_node, per_node, nodes * clients,
                    f'<dedicated cores="{cores}" nodes="0"/>{first}')
        servers, per_node = rng.randint(1, 2), rng.randint(1, 2)
        client_nodes = rng.randint(servers, 3)
        ranks = (servers + client_nodes) * per_node
        if ranks > MOST_RANKS:
            continue
        first = '<placement servers="first"/>' if rng.random() < 0.3 else ""
        return (approach, ranks, per_node, client_nodes * per_node,
                f'<dedicated cores="0" nodes="{servers}"/>{first}')


def draw_store(rng, name, path):
    store = {"name": name, "path": path,
             "mode": rng.choice(["FilePerCore", "FilePerNode", "Collective"]),
             "compression": rng.choice(["none", "none", "deflate"])}
    if store["compression"] == "deflate":
        store["chunk"] = rng.choice([1024, 4096, None])
    return store


def draw_variable(rng, index, iterations, clients, domains, stores):
    ndims = rng.randint(1, 3)
    interior = [rng.randint(1, 5) for _ in range(ndims)]
    ghosts = [(rng.choice([0, 0, 1, 2]), rng.choice([0, 0, 1, 2])) for _ in range(ndims)]
    constant = rng.random() < 0.2
    mine = [s for s in stores if rng.random() < 0.6] or [rng.choice(stores)]
    collective = any(s["mode"] == "Collective" for s in mine)
    var = {
        "index": index,
        "name": (f"grp/v{index}" if rng.random() < 0.3 else f"v{index}"),
        "type": rng.choice(sorted(DTYPES)),
        "interior": interior,
        "ghosts": ghosts,
        "fortran": rng.random() < 0.25,
        "constant": constant,
        "parameters": rng.random() < 0.5,
        "how": [rng.choice(["write", "view", "alloc"]) for _ in range(rng.randint(1, 3))],
        "stores": [s["name"] for s in mine],
    }
    # Which blocks each client writes at each iteration: a constant variable and a collective
    # file need every block of an iteration (or none); otherwise any subset.
    every = [rng.random() < 0.75 for _ in range(iterations)]
    writes = {}
    for source in range(clients):
        per_iteration = []
        for it in range(iterations):
            if collective or constant:
                blocks = list(range(domains)) if every[it] else []
            else:
                blocks = [b for b in range(domains) if rng.random() < 0.7]
            per_iteration.append(blocks)
        writes[str(source)] = per_iteration
    var["writes"] = writes
    var["positions"], var["global"] = draw_positions(rng, var, clients, domains, collective)
    if var["parameters"] and not (collective or constant) and rng.random() < 0.4:
        var["resize"] = {str(source): draw_sizes(rng, interior, iterations)
                         for source in range(clients)}
    return var


def draw_sizes(rng, interior, iterations):
    """A client's extents at each iteration: its parameters set to new values now and then."""
    sizes, now = [], list(interior)
    for _ in range(iterations):
        if rng.random() < 0.5:
            now = [rng.randint(1, 5) for _ in interior]
        sizes.append(list(now))
    return sizes


def draw_positions(rng, var, clients, domains, collective):
    """Collective: the blocks tile the global array along one axis, in a random order (the
    global extent given or left to the positions); otherwise some variables have positions."""
    interior = var["interior"]
    slabs = clients * domains
    if collective:
        axis = rng.randrange(len(interior))
        order = list(range(slabs))
        rng.shuffle(order)
        positions = {}
        for k, (source, block) in enumerate((s, b) for s in range(clients)
                                            for b in range(domains)):
            at = [0] * len(interior)
            at[axis] = order[k] * interior[axis]
            positions[f"{source}/{block}"] = at
        extent = list(interior)
        extent[axis] *= slabs
        return positions, (extent if rng.random() < 0.5 else None)
    if rng.random() < 0.3:
        return ({f"{s}/{b}": [rng.randint(0, 50) for _ in interior]
                 for s in range(clients) for b in range(domains)}, None)
    return {}, None


def draw_case(seed, number):
    rng = random.Random(f"{seed}-{number}")
    approach, ranks, per_node, clients, architecture = draw_architecture(rng)
    stores = [draw_store(rng, "files", "out")]
    if rng.random() < 0.3:
        stores.append(draw_store(rng, "more", "out2"))
    domains = rng.randint(1, 3)
    iterations = rng.randint(2, 4)
    variables = [draw_variable(rng, i, iterations, clients, domains, stores)
                 for i in range(rng.randint(1, 4))]
    return {"seed": seed, "number": number, "approach": approach, "ranks": ranks,
            "ranks_per_node": per_node, "clients": clients, "architecture": architecture,
            "stores": stores, "domains": domains, "iterations": iterations,
            "allocator": rng.choice(["general", "partitioned"]), "variables": variables}


# ---- the configuration ----------------------------------------------------------------------

def layout_order(var, values):
    return list(values)[::-1] if var["fortran"] else list(values)


def layout_xml(var):
    index = var["index"]
    dims, parameters = [], []
    for d, (n, (lo, hi)) in enumerate(zip(var["interior"], var["ghosts"])):
        if var["parameters"]:
            parameters.append(f'<parameter name="N{index}_{d}" type="int" value="{n}"/>')
            dims.append(f"N{index}_{d}+{lo + hi}" if lo + hi else f"N{index}_{d}")
        else:
            dims.append(str(n + lo + hi))
    attributes = [f'name="l{index}"', f'type="{var["type"]}"',
                  f'dimensions="{",".join(layout_order(var, dims))}"']
    if any(lo or hi for lo, hi in var["ghosts"]):
        ghosts = [f"{lo}:{hi}" for lo, hi in var["ghosts"]]
        attributes.append(f'ghosts="{",".join(layout_order(var, ghosts))}"')
    if var["global"]:
        attributes.append(f'global="{",".join(map(str, layout_order(var, var["global"])))}"')
    if var["fortran"]:
        attributes.append('language="fortran"')
    return "".join(parameters), f'<layout {" ".join(attributes)}/>'


def variable_xml(var):
    name = var["name"].split("/")[-1]
    constant = ' time-varying="false"' if var["constant"] else ""
    stores = ",".join(var["stores"])
    return f'<variable name="{name}" layout="l{var["index"]}" store="{stores}"{constant}/>'


def configuration(case):
    top, grouped = [], []
    for var in case["variables"]:
        parameters, layout = layout_xml(var)
        top.append(parameters + layout)
        (grouped if var["name"].startswith("grp/") else top).append(variable_xml(var))
    group = f'<group name="grp">{"".join(grouped)}</group>' if grouped else ""
    return f"""<simulation name="{SIMULATION}" xmlns="urn:ecluse:config:1">
  <architecture>
    <domains count="{case['domains']}"/>
    {case['architecture']}
    <buffer size="16MiB" allocator="{case['allocator']}"/>
    <virtual-nodes ranks-per-node="{case['ranks_per_node']}"/>
  </architecture>
  <data>
    {chr(10).join(top)}
    {group}
  </data>
  <storage>
    {chr(10).join(store_xml(store) for store in case["stores"])}
  </storage>
  <log LogLevel="warning"/>
</simulation>
"""


def store_xml(store):
    options = [("FileMode", store["mode"]), ("FilesPath", store["path"]),
               ("Compression", store["compression"])]
    if store.get("chunk"):
        options.append(("ChunkSize", store["chunk"]))
    body = "".join(f'<option key="{key}">{value}</option>' for key, value in options)
    return f'<store name="{store["name"]}" type="HDF5">{body}</store>'


# ---- what the files must hold ---------------------------------------------------------------

def stored_iterations(var, source, iterations):
    """The iterations at which a block of `source` is stored: every one it is written at, or
    for a constant variable only the first."""
    written = [it for it in range(iterations) if var["writes"][str(source)][it]]
    return written[:1] if var["constant"] else written


def expected_datasets(case, store):
    """{iteration: {dataset path: array}} of one store."""
    expected = {it: {} for it in range(case["iterations"])}
    for var in case["variables"]:
        if store["name"] not in var["stores"]:
            continue
        for source in range(case["clients"]):
            for it in stored_iterations(var, source, case["iterations"]):
                for block in var["writes"][str(source)][it]:
                    values = block_values(var, it, source, block)
                    if store["mode"] == "Collective":
                        place(expected[it], var, source, block, values)
                    else:
                        path = f"{var['name']}/P{source}"
                        if case["domains"] > 1:
                            path += f"/B{block}"
                        expected[it][path] = values
    return expected


def place(datasets, var, source, block, values):
    extent = var["global"] or collective_extent(var)
    whole = datasets.setdefault(var["name"], np.zeros(extent, dtype=values.dtype))
    at = var["positions"][f"{source}/{block}"]
    whole[tuple(slice(a, a + n) for a, n in zip(at, values.shape))] = values


def collective_extent(var):
    ends = [[a + n for a, n in zip(at, var["interior"])] for at in var["positions"].values()]
    return [max(column) for column in zip(*ends)]


def read_iteration(out, mode, iteration):
    """{dataset path: array} of one iteration's files, the files' names; a dataset in two
    files fails."""
    pattern = {"FilePerCore": f"{SIMULATION}_It{iteration}_Pr*.h5",
               "FilePerNode": f"{SIMULATION}_It{iteration}_Node*.h5",
               "Collective": f"{SIMULATION}_It{iteration}.h5"}[mode]
    files = sorted(out.glob(pattern))
    return datasets_of(files), [p.name for p in files]


# ---- running a case -------------------------------------------------------------------------

def describe(case, where):
    return (f"random case {case['number']} of seed {case['seed']} "
            f"(replay: ECLUSE_RANDOM_SEED={case['seed']}); files in {where}: "
            f"{case['approach']} on {case['ranks']} ranks ({case['ranks_per_node']} per node), "
            f"{case['domains']} domain(s)")


def run_case(case, where):
    where.mkdir(parents=True, exist_ok=True)
    (where / "case.json").write_text(json.dumps(case, indent=1))
    (where / "case.xml").write_text(configuration(case))
    env = dict(child_env(), ECLUSE_TIMEOUT="60")
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env["PYTHONPATH"]])
    return subprocess.run(
        [mpiexec(), "-n", str(case["ranks"]), sys.executable, str(HERE / "random_writes_driver.py"),
         "case.json"], cwd=where, env=env, capture_output=True, text=True, timeout=300)


def check_case(case, where, result):
    what = describe(case, where)
    output = f"\nstdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"
    assert result.returncode == 0, f"{what}: exit status {result.returncode}{output}"
    written = sum(int((where / f"wrote-{source}").read_text())
                  for source in range(case["clients"]) if (where / f"wrote-{source}").exists())
    wanted = sum(len(blocks) for var in case["variables"]
                 for per_source in var["writes"].values() for blocks in per_source)
    assert written == wanted, f"{what}: the clients wrote {written} blocks, not {wanted}{output}"
    for store in case["stores"]:
        check_store(case, store, where / store["path"], f"{what}, store {store}")
    report = json.loads((where / f"{SIMULATION}-report.json").read_text())
    assert report.get("complete") is True, f"{what}: the report says incomplete{output}"


def check_store(case, store, out, what):
    assert not list(out.glob("*.part")), f"{what}: files left unfinished"
    expected = expected_datasets(case, store)
    for it in range(case["iterations"]):
        stored, files = read_iteration(out, store["mode"], it)
        label = f"{what}: iteration {it} ({', '.join(files) or 'no file'})"
        assert sorted(stored) == sorted(expected[it]), f"{label}: datasets differ"
        for path, values in expected[it].items():
            got = stored[path]
            assert got.dtype == values.dtype, f"{label}: {path} is {got.dtype}, not {values.dtype}"
            assert got.shape == values.shape, f"{label}: {path} has shape {got.shape}"
            assert got.tobytes() == values.tobytes(), f"{label}: {path} differs:\n{got}\n{values}"


@pytest.mark.parametrize("number", range(CASES))
def test_random_case(number, tmp_path):
    case = draw_case(SEED, number)
    result = run_case(case, tmp_path / f"case{number}")
    check_case(case, tmp_path / f"case{number}", result)
