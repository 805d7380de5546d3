"""damaris4py.dask.damaris_stats: DaskStats, the running count, mean and variance of a field over
iterations and runs, with the interface of Damaris 1.7's class of the same name (its example
stats_3dmesh_dask.py updates it from a <pyscript>; stats_get_results.py reads it after the runs).

The statistics live on the Dask scheduler as published datasets named <name>_count,
<name>_chunks_tup, <name>_mean and <name>_M2 (Welford's algorithm: M2 is the sum of squared
deviations). Unlike Damaris's class, the mean and M2 are kept as NumPy arrays, computed at each
update: they outlive the workers of the run that produced them (Ecluse stops its servers' workers
at finalize), and reading them needs no data of a finished run."""
import numpy as np


def _lock(name, client, timeout):
    """The Dask lock `name` on the scheduler of `client`, acquired (Lock finds its scheduler from
    the current client: `client` is made current for it)."""
    from distributed import Lock
    with client.as_current():
        lock = Lock(name=name)
        acquired = lock.acquire(timeout=timeout)
    if not acquired:
        raise TimeoutError(f"damaris_stats: the Dask lock '{name}' was not acquired within "
                           f"{timeout} s")
    return lock


class DaskStats:
    """Statistics of one field, shared by every server (and every run) through the scheduler:
    `unique_name_str` names them, `lock_name_str` names the Dask lock that serialises updates."""

    def __init__(self, unique_name_str, lock_name_str):
        self.unique_name_str = unique_name_str
        self.lock_name_str = lock_name_str

    def _key(self, what):
        return f"{self.unique_name_str}_{what}"

    def _load(self, client):
        """(count, chunks, mean, M2) as published, or (0, None, None, None) before the first."""
        if self._key("count") not in client.list_datasets():
            return 0, None, None, None
        return (client.get_dataset(self._key("count")), client.get_dataset(self._key("chunks")),
                client.get_dataset(self._key("mean")), client.get_dataset(self._key("M2")))

    def save_on_dask(self, client, count, chunks_tup, mean, M2, chunks=None):
        """Publishes the statistics (replacing the previous ones)."""
        for what in ("count", "chunks_tup", "chunks", "mean", "M2"):
            if self._key(what) in client.list_datasets():
                client.unpublish_dataset(self._key(what))
        client.publish_dataset(**{self._key("count"): count, self._key("chunks_tup"): chunks_tup,
                                  self._key("chunks"): chunks, self._key("mean"): mean,
                                  self._key("M2"): M2})

    def update(self, newValue, client, lock_timeout=60):
        """Adds one value of the field (a dask.array or a NumPy array of a fixed shape)."""
        value = np.asarray(newValue.compute() if hasattr(newValue, "compute") else newValue,
                           dtype=np.float64)
        chunks = getattr(newValue, "chunks", None)
        lock = _lock(self.lock_name_str, client, lock_timeout)
        try:
            count, known_chunks, mean, m2 = self._load(client)
            if count == 0:
                mean, m2 = np.zeros_like(value), np.zeros_like(value)
            elif mean.shape != value.shape:
                raise ValueError(f"damaris_stats '{self.unique_name_str}': a value of shape "
                                 f"{value.shape} for statistics of shape {mean.shape}")
            count += 1
            delta = value - mean
            mean = mean + delta / count
            m2 = m2 + delta * (value - mean)
            self.save_on_dask(client, count, self.set_chunks(value.shape), mean, m2,
                              chunks or known_chunks)
        finally:
            lock.release()

    def return_count(self, client, lock_timeout=60):
        """How many values were added (0 before the first)."""
        lock = _lock(self.lock_name_str, client, lock_timeout)
        try:
            return self._load(client)[0]
        finally:
            lock.release()

    def _as_dask(self, array, chunks):
        import dask.array as da
        return da.from_array(array, chunks=chunks if chunks is not None else array.shape)

    def _counted(self, client, lock_timeout):
        """(count, chunks, mean, M2) under the lock; KeyError before the first update, when
        there is no array (Damaris's class fails then too, with a NameError)."""
        lock = _lock(self.lock_name_str, client, lock_timeout)
        try:
            count, chunks, mean, m2 = self._load(client)
        finally:
            lock.release()
        if count == 0:
            raise KeyError(f"damaris_stats '{self.unique_name_str}': no value was added yet "
                           "(count 0); update() adds one")
        return count, chunks, mean, m2

    def return_mean(self, client, lock_timeout=60):
        """The mean of the values added (a dask.array in the chunks of the values); KeyError
        before the first. Damaris gives NaN for the mean of a single value; here it is that
        value."""
        _, chunks, mean, _ = self._counted(client, lock_timeout)
        return self._as_dask(mean, chunks)

    def return_variance(self, client, lock_timeout=60):
        """The sample variance (M2 / (count - 1)) of the values added, NaN everywhere (in the
        values' shape and chunks) after a single value, as Damaris means it; KeyError before
        the first."""
        count, chunks, _, m2 = self._counted(client, lock_timeout)
        variance = np.full_like(m2, np.nan) if count < 2 else m2 / (count - 1)
        return self._as_dask(variance, chunks)

    def return_mean_var_tuple(self, client, lock_timeout=60):
        return self.return_mean(client, lock_timeout), self.return_variance(client, lock_timeout)

    @staticmethod
    def set_chunks(shape):
        """The output chunks of a per-block reduction (compute_block_average): one cell per
        block in every dimension."""
        return tuple(1 for _ in shape)

    def get_chunks(self, client):
        return client.get_dataset(self._key("chunks_tup"))

    def compute_block_average(self, block):
        """A block's average, as a block of one cell (for map_blocks with get_chunks)."""
        return np.full((1,) * block.ndim, np.average(block))

    def compute_block_average_of_sqrt(self, block):
        return np.full((1,) * block.ndim, np.average(np.sqrt(block)))

    @staticmethod
    def compute_block_add_rand(block, mean=0.0, std=0.1):
        """The block plus Gaussian noise (for tests of the statistics)."""
        return block + np.random.normal(mean, std, np.shape(block))
