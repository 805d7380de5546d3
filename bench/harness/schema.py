"""The schema of the harness's results.json (`ecluse-harness/1`, documented in docs/harness.md)
and a small validator that names every problem by its path, e.g. `runs[0].metrics.energy_j`.

Written by hand rather than with jsonschema: the harness runs in the project's venv, which has
NumPy, h5py, pytest and matplotlib only.
"""

SCHEMA_ID = "ecluse-harness/1"


class Nullable:
    """A value of the inner kind, or null."""

    def __init__(self, inner):
        self.inner = inner


class Enum:
    """One string out of a fixed set."""

    def __init__(self, *values):
        self.values = values


class ListOf:
    def __init__(self, item):
        self.item = item


class MapOf:
    """An object whose keys are free and whose values all have one kind."""

    def __init__(self, value):
        self.value = value


class Open:
    """An object with the given keys at least; further keys are allowed (copied documents)."""

    def __init__(self, fields):
        self.fields = fields


class WithOptional:
    """An object with the given keys, and these further keys when present (no other key)."""

    def __init__(self, fields, optional):
        self.fields = fields
        self.optional = optional


ANY = object()
NUMBER = "number"
INTEGER = "integer"
STRING = "string"
BOOLEAN = "boolean"
OBJECT = "object"

NUM_OR_NULL = Nullable(NUMBER)
STR_OR_NULL = Nullable(STRING)

MACHINE = {
    "cores": INTEGER, "cpu_model": STRING, "memory_bytes": INTEGER, "kernel": STRING,
    "hostname": STRING, "mpiexec": STRING, "mpi_version": STRING, "python": STRING,
    "loadavg_at_start": NUMBER, "max_ranks": INTEGER, "oversubscribed": BOOLEAN,
}
# Since the harness pauses free page reporting (bench/page_reporting.py): what it did. Optional:
# results written before have no such key.
MACHINE_OPTIONAL = {"free_page_reporting": STRING}

APPROACH = {"kind": Enum("ecluse", "hdf5", "adios2"), "label": STRING, "available": BOOLEAN,
            "reason": STR_OR_NULL, "notes": STRING}

METRICS = {
    "completion_time_s": NUMBER, "loop_time_s": NUM_OR_NULL,
    "write_time_mean_s": NUM_OR_NULL, "write_time_max_s": NUM_OR_NULL,
    "write_jitter_s": NUM_OR_NULL, "bytes_written": Nullable(INTEGER),
    "bytes_on_disk": INTEGER, "throughput_mb_s": NUM_OR_NULL, "write_rate_mb_s": NUM_OR_NULL,
    "job_cpu_s": NUMBER, "job_cpu_percent": NUMBER,
    "report_available": BOOLEAN, "cpu_percent_by_role": Nullable(MapOf(NUMBER)),
    "energy_j": NUM_OR_NULL, "energy_source": STR_OR_NULL, "energy_quality": STR_OR_NULL,
    "energy_by_role_j": Nullable(MapOf(NUMBER)), "average_power_w": NUM_OR_NULL,
    "mb_s_per_w": NUM_OR_NULL,
}

RUN = {
    "id": STRING, "workload": Enum("proxy", "vorpal-io", "vpic-io"), "approach": STRING,
    "ranks": INTEGER, "clients": Nullable(INTEGER), "oversubscribed": BOOLEAN,
    "parameters": MapOf(ANY), "repetition": INTEGER, "status": Enum("ok", "failed"),
    "error": STR_OR_NULL, "command": ListOf(STRING), "summary": Nullable(Open({})),
    "report": Nullable(Open({})), "metrics": Nullable(METRICS),
}

SKIPPED = {"workload": STRING, "approach": STRING, "ranks": INTEGER, "parameters": MapOf(ANY),
           "reason": STRING}

AGGREGATE = {
    "key": STRING, "workload": STRING, "approach": STRING, "ranks": INTEGER,
    "clients": Nullable(INTEGER), "parameters": MapOf(ANY), "runs": INTEGER, "ok": INTEGER,
    "median": MapOf(Nullable(NUMBER)), "min": MapOf(Nullable(NUMBER)),
    "max": MapOf(Nullable(NUMBER)), "energy_source": STR_OR_NULL, "energy_quality": STR_OR_NULL,
    "cpu_percent_by_role": Nullable(MapOf(NUMBER)), "ratio_to_tp": MapOf(Nullable(NUMBER)),
}

DOCUMENT = {
    "schema": Enum(SCHEMA_ID), "created": STRING, "matrix": STRING, "repetitions": INTEGER,
    "build": STRING, "duration_s": NUMBER, "machine": WithOptional(MACHINE, MACHINE_OPTIONAL),
    "approaches": MapOf(APPROACH), "runs": ListOf(RUN), "skipped": ListOf(SKIPPED),
    "aggregates": ListOf(AGGREGATE), "report_note": STRING,
}


def kind_name(value):
    """The JSON name of a Python value's kind, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return NUMBER
    return {str: STRING, dict: OBJECT, list: "array"}.get(type(value), type(value).__name__)


def is_kind(value, kind):
    name = kind_name(value)
    return name == kind or (kind == NUMBER and name == INTEGER)


def check_object(value, fields, path, errors, closed=True):
    if not isinstance(value, dict):
        errors.append(f"{path}: expected object, got {kind_name(value)}")
        return
    for key, spec in fields.items():
        if key not in value:
            errors.append(f"{path}.{key}: missing")
        else:
            check(value[key], spec, f"{path}.{key}", errors)
    if closed:
        for key in value.keys() - fields.keys():
            errors.append(f"{path}.{key}: unexpected key")


def check_list(value, item, path, errors):
    if not isinstance(value, list):
        errors.append(f"{path}: expected array, got {kind_name(value)}")
        return
    for index, element in enumerate(value):
        check(element, item, f"{path}[{index}]", errors)


def check_map(value, inner, path, errors):
    if not isinstance(value, dict):
        errors.append(f"{path}: expected object, got {kind_name(value)}")
        return
    for key, element in value.items():
        check(element, inner, f"{path}.{key}", errors)


def check(value, spec, path, errors):
    """Appends to errors every way in which value differs from spec."""
    if spec is ANY:
        return
    if isinstance(spec, Nullable):
        if value is not None:
            check(value, spec.inner, path, errors)
    elif isinstance(spec, Enum):
        if value not in spec.values:
            allowed = ", ".join(repr(v) for v in spec.values)
            errors.append(f"{path}: expected one of {allowed}, got {value!r}")
    elif isinstance(spec, ListOf):
        check_list(value, spec.item, path, errors)
    elif isinstance(spec, MapOf):
        check_map(value, spec.value, path, errors)
    elif isinstance(spec, Open):
        check_object(value, spec.fields, path, errors, closed=False)
    elif isinstance(spec, WithOptional):
        present = {k: v for k, v in spec.optional.items() if isinstance(value, dict) and k in value}
        check_object(value, {**spec.fields, **present}, path, errors)
    elif isinstance(spec, dict):
        check_object(value, spec, path, errors)
    elif not is_kind(value, spec):
        errors.append(f"{path}: expected {spec}, got {kind_name(value)}")


def check_consistency(document, errors):
    """Rules a type check cannot see: a successful run has metrics, a failed one says why."""
    for index, run in enumerate(document.get("runs") or []):
        if not isinstance(run, dict):
            continue
        if run.get("status") == "ok" and run.get("metrics") is None:
            errors.append(f"$.runs[{index}].metrics: null for a run whose status is 'ok'")
        if run.get("status") == "failed" and not run.get("error"):
            errors.append(f"$.runs[{index}].error: empty for a run whose status is 'failed'")


def validate(document):
    """Every problem of a results document, as `path: message` lines; [] when it is valid."""
    errors = []
    check(document, DOCUMENT, "$", errors)
    if isinstance(document, dict):
        check_consistency(document, errors)
    return errors
