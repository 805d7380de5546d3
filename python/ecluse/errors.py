"""ecluse.Error: what every failed call of the binding raises (pure Python, so that the native
module and the package agree on one class whether or not the native module is built)."""


class Error(Exception):
    """A failed Ecluse call: `message` as the C API gives it (ecluse_error_message), `status` its
    name ("ECLUSE_UNDEFINED_VARIABLE") and `code` its number (ecluse_status)."""

    __module__ = "ecluse"  # shown as ecluse.Error, where users import it from

    def __init__(self, message, status="ECLUSE_ERROR_UNKNOWN", code=None):
        super().__init__(message, status, code)
        self.message, self.status, self.code = message, status, code

    def __str__(self):
        return f"{self.status}: {self.message}"


class ViewWarning(UserWarning):
    """An `alloc` view that other references still hold when its block is handed over or given
    up (commit, clear, a new alloc, the end of the iteration, close): a view derived from it
    (a[1:], a.reshape(...)) cannot be made read-only and still writes into Ecluse's buffer."""

    __module__ = "ecluse"
