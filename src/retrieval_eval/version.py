"""The version of reval, in a module of its own: everything that prints it (the CLI, the
reports) imports it from here, not from the package root, so that the root, which names
the public API, depends on no layer above it and nothing depends on the root. A test
checks it against the installed distribution's metadata."""

__version__ = "0.1.0"
