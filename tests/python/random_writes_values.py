"""The values of tests/python/test_random_writes.py, shared by its simulation (the driver) and
its checks: every element says which variable, iteration, client and block it belongs to, and
where in the block it is; ghost cells hold GHOST, which no interior element does."""
import numpy as np

DTYPES = {"char": np.int8, "short": np.int16, "int": np.int32, "long": np.int64,
          "float": np.float32, "double": np.float64}
GHOST = -7


def interior(var, source, it):
    """The interior's extents (C order) of `source`'s blocks at iteration `it`: the layout's,
    or what the client set its parameters to (var["resize"])."""
    sizes = var.get("resize", {}).get(str(source))
    return sizes[it] if sizes else var["interior"]


def block_values(var, it, source, block):
    """The interior of one block, C order (exact in every type: floats stay below 2**24)."""
    dtype = DTYPES[var["type"]]
    shape = interior(var, source, it)
    count = int(np.prod(shape))
    tag = (var["index"] * 7 + it * 13 + source * 31 + block * 17) % 97
    if dtype == np.int8:  # 0..125: never GHOST
        values = (tag + np.arange(count)) % 126
    else:
        values = tag * 1000 + np.arange(count)
    return values.astype(dtype).reshape(shape)
