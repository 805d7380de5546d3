"""Ecluse's pure-Python side: the energy model of seed 002 §3 and its extensions, the profiler,
the advisor and the validation of predictions against run reports (`docs/model.md`); and the
binding, `ecluse.Session` (session.py), over the native module `ecluse._native`."""

__version__ = "0.1.0"

# The native module is built apart (<build>/python/ecluse/_native*.so); a .pth entry or PYTHONPATH
# naming <build>/python lets this package find it there.
__path__ = __import__("pkgutil").extend_path(__path__, __name__)

from .errors import Error, ViewWarning  # noqa: E402  (pure Python: no native module needed)

_NATIVE_NAMES = {"Session": "session"}


def __getattr__(name):
    """ecluse.Session is imported on first use, so that the CLI and the model never need the
    native module."""
    if name in _NATIVE_NAMES:
        import importlib
        return getattr(importlib.import_module(f".{_NATIVE_NAMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
