"""damaris4py.dask: Dask helpers (damaris_dask), as aliases of ecluse.insitu."""
