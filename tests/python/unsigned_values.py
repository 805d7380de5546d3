"""The values of tests/python/test_unsigned_types.py, shared by its simulation and its checks."""
import numpy as np

ITERATIONS = 2
DTYPES = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}


def values(name, client, iteration):
    """The block of `name` from `client` at `iteration`: the type's maximum, the first value above
    the signed maximum, then small numbers."""
    bits = np.iinfo(DTYPES[name]).bits
    return [2 ** bits - 1, 2 ** (bits - 1), client, iteration]
