"""Corpus reading, chunking and the corpus revision, shared by the reference plugins.

Public to plugins: a BM25, dense or custom index built from these reads the same
documents, cuts the same chunks and reports the same corpus revision. ``reader`` reads
and scans a corpus file, ``chunking`` cuts documents into chunks, ``revision`` names what
was indexed.
"""
