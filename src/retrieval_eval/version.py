"""What is installed: the distribution's name and version, in a module of its own. Everything
that prints them (the CLI, the reports, the hints naming an extra) imports them from here,
not from the package root, so that the root, which names the public API, depends on no
layer above it and nothing depends on the root.

The version is written once, here: the build reads it (``[tool.setuptools.dynamic]`` in
pyproject.toml) and a test checks it against the installed distribution's metadata. The
distribution is ``reval-ir``, not the import package's name: ``retrieval-eval`` on PyPI is
another project that also ships a ``retrieval_eval`` package."""

__version__ = "0.1.0"

#: The core distribution (what ``pip install`` names).
DISTRIBUTION = "reval-ir"
#: The reference plugins' distributions, by the name a retriever spec gives them.
PLUGIN_DISTRIBUTIONS = {"bm25": "reval-ir-bm25", "dense": "reval-ir-dense"}


def install_extra(extra: str) -> str:
    """The command that installs ``extra`` of reval (for hints in errors)."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def install_plugin(name: str) -> str:
    """How to install the reference plugin ``name`` (``bm25``, ``dense``): its distribution,
    and from a checkout until it is published."""
    return (
        f"pip install {PLUGIN_DISTRIBUTIONS[name]}, "
        f"or from a reval checkout: pip install -e ./plugins/{name}"
    )
