"""damaris4py.server: the names of Damaris 1.7's compiled module damaris4py.server, over
ecluse.insitu and the run's Damaris environment (DD['damaris_env'], the same for every script).
A script runs on a server (or, in time partitioning, on the clients that store)."""
from ecluse.insitu import known_clients, server_comm


def _env(key):
    from ecluse import _insitu_runtime
    return _insitu_runtime.state().damaris_env[key]


def getservercomm():
    """The servers' communicator (mpi4py)."""
    return server_comm()


def getdamariscomm():
    """The servers' communicator, as Damaris's getdamariscomm() gives on a server (its entity
    communicator, Environment::GetEntityComm()): the same as getservercomm() (mpi4py)."""
    return server_comm()


def getglobalcomm():
    """Every rank of the run, clients and servers: MPI_COMM_WORLD (mpi4py)."""
    from mpi4py import MPI
    return MPI.COMM_WORLD


def getclientcomm():
    """The clients' communicator (mpi4py), which Damaris gives to clients only: under time
    partitioning a script runs on the clients, and this is the communicator of those running it
    (every client that stores); on a dedicated core or node it raises."""
    if not isdedicatedcore() and not isdedicatednode():
        return server_comm()
    raise RuntimeError("damaris4py.server.getclientcomm(): this <pyscript> runs on a dedicated "
                       "core or node, which has no clients' communicator; use getservercomm()")


def isserver():
    return True


def isclient():
    return False


def isdedicatedcore():
    return bool(_env("is_dedicated_core"))


def isdedicatednode():
    return bool(_env("is_dedicated_node"))


def clientspernode():
    return int(_env("clients_per_node"))


def corespernode():
    return int(_env("cores_per_node"))


def serverspernode():
    return int(_env("servers_per_node"))


def numberofnodes():
    return int(_env("number_of_nodes"))


def listknownclients():
    """Ranks (in the clients' communicator) of the clients this server serves, from the
    placement (Damaris: Environment::GetKnownLocalClients())."""
    return known_clients()


def magicnumber_string():
    """The run-unique identifier, the same on every rank (Damaris: no argument)."""
    return _env("simulation_magic_number")


def getmagicnumber(DD):
    """magicnumber_string() read from DD (an Ecluse name, kept for its earlier scripts)."""
    from ecluse.insitu import magic_number
    return magic_number(DD)
