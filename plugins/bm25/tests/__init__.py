"""Tests of the BM25 plugin (a package, so that they import ``.corpora``)."""
