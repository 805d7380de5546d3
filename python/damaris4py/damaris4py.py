"""damaris4py.damaris4py: the name under which earlier Damaris releases (and several of its
example scripts: `from damaris4py.damaris4py import getservercomm, listknownclients,
magicnumber_string`) installed the compiled server module; the same names as damaris4py.server."""
from .server import (clientspernode, corespernode, getclientcomm, getdamariscomm,  # noqa: F401
                     getglobalcomm, getservercomm, isclient, isdedicatedcore, isdedicatednode,
                     isserver, listknownclients, magicnumber_string, numberofnodes,
                     serverspernode)
