"""damaris4py.server: the servers' communicator and the known clients (ecluse.insitu)."""
from ecluse.insitu import known_clients, server_comm


def getservercomm():
    return server_comm()


def listknownclients():
    return known_clients()


def getmagicnumber(DD):
    from ecluse.insitu import magic_number
    return magic_number(DD)
