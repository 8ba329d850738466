"""Retriever kinds: ``[retrievers.NAME]`` tables with ``kind = "..."`` that reach a retriever
a team already runs (an HTTP search endpoint, a JSON-lines process, a SQL query) without
writing a server. See ``registry`` for the kinds and ``base`` for what every kind shares.
"""
