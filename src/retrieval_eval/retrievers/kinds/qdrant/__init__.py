"""The ``qdrant`` kind: a Qdrant collection searched by the question's embedding."""
