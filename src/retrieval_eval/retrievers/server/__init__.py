"""The server SDK: a Python retriever becomes a gRPC service (health, reflection, TLS, token)."""
