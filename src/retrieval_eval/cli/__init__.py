"""The ``reval`` command line: a thin layer over the library (the only click user).

``main`` loads a command's module when the command runs, and a command imports the
library inside its function: ``reval --help`` and a command's ``--help`` load click and
the command's own module only (``tests/cli/test_startup.py`` checks it).
"""
