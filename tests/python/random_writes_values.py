"""The values of tests/python/test_random_writes.py, shared by its simulation (the driver) and
its checks: every element says which variable, iteration, client and block it belongs to, and
where in the block it is; ghost cells hold GHOST (wrapped into an unsigned type), which no
interior element does."""
import numpy as np

DTYPES = {"char": np.int8, "short": np.int16, "int": np.int32, "long": np.int64,
          "float": np.float32, "double": np.float64,
          # both spellings of the unsigned types, every width
          "uint8": np.uint8, "uint16": np.uint16, "unsigned int": np.uint32,
          "unsigned long": np.uint64}
GHOST = -7


def ghost(dtype):
    """GHOST in `dtype`: wrapped in an unsigned type (2**bits - 7), which no interior holds."""
    return np.array(GHOST).astype(dtype)


def unsigned_values(dtype, tag, count):
    """Values above the signed maximum, up to 2**bits - 8, falling from there: the high bits
    all set, so a conversion through a signed or floating type anywhere on the way shows."""
    bits = np.iinfo(dtype).bits
    span = min(2 ** (bits - 1) - 8, 1 << 20)
    top = np.uint64(2 ** bits - 8)
    steps = (np.uint64(tag * 1000) + np.arange(count, dtype=np.uint64)) % np.uint64(span)
    return top - steps


def interior(var, source, it):
    """The interior's extents (C order) of `source`'s blocks at iteration `it`: the layout's,
    or what the client set its parameters to (var["resize"])."""
    sizes = var.get("resize", {}).get(str(source))
    return sizes[it] if sizes else var["interior"]


def block_values(var, it, source, block):
    """The interior of one block, C order (exact in every type: floats stay below 2**24;
    unsigned values lie above the signed maximum)."""
    dtype = DTYPES[var["type"]]
    shape = interior(var, source, it)
    count = int(np.prod(shape))
    tag = (var["index"] * 7 + it * 13 + source * 31 + block * 17) % 97
    if np.issubdtype(dtype, np.unsignedinteger):
        values = unsigned_values(dtype, tag, count)
    elif dtype == np.int8:  # 0..125: never GHOST
        values = (tag + np.arange(count)) % 126
    else:
        values = tag * 1000 + np.arange(count)
    return values.astype(dtype).reshape(shape)
