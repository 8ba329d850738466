"""Reranked retrievers: a candidate retriever's documents rescored by a scorer.

``config`` holds the reval.toml entry, ``scorers`` the two scorers (an embedder's cosine
similarity, an HTTP ``/rerank`` endpoint), ``retriever`` the ``AsyncRetriever`` that asks
the candidate, collapses to documents and reorders them, ``open`` how an entry is opened.
"""
