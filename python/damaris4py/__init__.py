"""damaris4py for Ecluse: the names Damaris 1.7's scripts import, as aliases of ecluse.insitu, so
that those scripts run unchanged on Ecluse's servers (docs/python-insitu.md)."""
