"""A factory function named by import path, for the framework kinds (``langchain``,
``llamaindex``): the user's own code builds the framework's retriever object; reval only
calls it once, when the retriever opens.

Keys::

    factory = "my_search:make_retriever"   # module:function, called with no arguments
    pythonpath = "."                       # folder the module is imported from (this file's)

Every failure (a module that cannot be imported, a missing function, a factory that
raises) is a ``ConfigError`` naming the key, so that ``reval`` exits 2 with one line.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from dataclasses import dataclass
from pathlib import Path

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.kinds.base import TableReader

FACTORY_KEYS = ("factory", "pythonpath")


@dataclass(frozen=True, slots=True)
class Factory:
    module: str
    function: str
    #: The folder the module is imported from.
    pythonpath: Path

    @property
    def path(self) -> str:
        """``module:function``, as written."""
        return f"{self.module}:{self.function}"

    def module_file(self) -> Path | None:
        """The module's source file, if it is a plain file under ``pythonpath``."""
        candidate = self.pythonpath.joinpath(*self.module.split("."))
        for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
            if path.is_file():
                return path
        return None

    def module_sha256(self) -> str:
        """The module file's digest ("" when it is not a plain file under ``pythonpath``),
        so that an edited factory is a new variant in run history."""
        source = self.module_file()
        return hashlib.sha256(source.read_bytes()).hexdigest() if source else ""

    def call(self, where: str) -> object:
        """Import the module and call the function; ``ConfigError`` naming ``factory``."""
        folder = str(self.pythonpath)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        try:
            module = importlib.import_module(self.module)
        except ImportError as e:
            raise ConfigError(
                f"{where}: key 'factory': cannot import {self.module!r} (from {folder}): "
                + _one_line(e)
            ) from None
        function = getattr(module, self.function, None)
        if not callable(function):
            raise ConfigError(
                f"{where}: key 'factory': {self.module!r} has no function {self.function!r}"
            )
        try:
            return function()
        except Exception as e:
            raise ConfigError(
                f"{where}: key 'factory': {self.path}() failed: {type(e).__name__}: " + _one_line(e)
            ) from None


def parse_factory(reader: TableReader) -> Factory:
    factory = reader.string("factory", required=True)
    module, _, function = factory.partition(":")
    if (
        not module
        or not function
        or not all(part.isidentifier() for part in (*module.split("."), function))
    ):
        raise reader.fail("factory", f"must be 'module:function', got {factory!r}")
    return Factory(module, function, reader.directory("pythonpath"))


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
