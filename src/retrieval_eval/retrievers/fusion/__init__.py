"""Fused (hybrid) retrievers: several named retrievers answered as one ranking.

``methods`` holds the definition (RRF, CombSUM, CombMNZ), ``config`` the reval.toml entry,
``retriever`` the ``AsyncRetriever`` that calls the members and fuses their answers.
"""
