"""What the raw gRPC servers the tests start have in common."""

from __future__ import annotations

#: gRPC servers set SO_REUSEPORT unless told not to, and Linux may then give two such
#: listeners of one user the same port from bind(0): the servers of two test workers would
#: share a port, each answering some of the other's calls. The tests' servers refuse to
#: share, as the SDK's servers do.
NO_PORT_SHARING = [("grpc.so_reuseport", 0)]
