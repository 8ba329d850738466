"""The ``reval`` command line: a thin layer over the library (the only click user)."""
