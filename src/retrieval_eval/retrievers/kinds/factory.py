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
import importlib.util
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.kinds.base import Common, KindEntry, TableReader

if TYPE_CHECKING:
    from retrieval_eval.retrievers.protocol import AsyncRetriever

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

    def identity(self) -> dict[str, object]:
        """The factory's part of a kind's identity: which function, and its module's
        digest."""
        return {"factory": self.path, "module_sha256": self.module_sha256()}

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


@dataclass(frozen=True, slots=True)
class FactoryEntry(KindEntry):
    """Base of the framework kinds' config dataclasses: a factory, the metadata key
    holding the id, and options of the kind's own (``options``)."""

    common: Common
    factory: Factory
    id_key: str
    #: The kind's name; the module that must import (found without importing it), and
    #: the distribution and install hint named when it does not.
    KIND: ClassVar[str]
    MODULE: ClassVar[str]
    PACKAGE: ClassVar[str]
    INSTALL: ClassVar[str]

    def options(self) -> Mapping[str, object]:
        raise NotImplementedError

    def retriever(self, timeout_s: float | None) -> AsyncRetriever:
        """The kind's retriever, imported here: a kind loads when opened, not when
        reval.toml is read."""
        raise NotImplementedError

    def detail(self) -> str:
        return f"{self.KIND} {self.factory.path}"

    def identity(self) -> Mapping[str, object]:
        return {**self.factory.identity(), "id_key": self.id_key, **self.options()}

    def open(self, timeout_s: float | None) -> AsyncRetriever:
        # A missing parent of a dotted MODULE (a namespace package) is "not installed".
        try:
            found = importlib.util.find_spec(self.MODULE) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            raise ConfigError(f"{self.where}: {self.PACKAGE} is not installed; {self.INSTALL}")
        return self.retriever(timeout_s)


def name_key(reader: TableReader, key: str, what: str) -> str:
    """An optional key naming a Python keyword argument or attribute (``what``)."""
    value = reader.string(key)
    if value and not value.isidentifier():
        raise reader.fail(key, f"must be {what}, got {value!r}")
    return value


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
