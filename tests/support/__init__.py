"""Helpers shared by the core's tests and the BM25 plugin's tests.

Importable as ``support`` because ``[tool.pytest.ini_options] pythonpath`` puts
``tests/`` on ``sys.path``: ``env`` (paths, skip-or-fail), ``fixtures`` (the fixtures
both conftests register), ``factory`` (real RunResults), ``certificates`` (TLS).
"""
