"""The registry of question-set providers: list every registered set, load one by name.

Providers are entry points in ``retrieval_eval.question_sets`` (see ``provider``); only
``retrieval_eval.plugins`` touches stevedore. A provider that fails to import, to list or
to load is reported by its entry-point name with the underlying error.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from retrieval_eval import plugins
from retrieval_eval.errors import InputError, PluginError, QuestionSetError, UnknownNameError
from retrieval_eval.questions.did_you_mean import suggest
from retrieval_eval.questions.formats import RawSet
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.questions.provider import QuestionSetProvider
from retrieval_eval.questions.reading import read_set_file
from retrieval_eval.questions.validate import build_set

log = logging.getLogger(__name__)
KIND = "question set"


@dataclass(frozen=True, slots=True)
class SetInfo:
    """One registered set, for listings."""

    name: str
    provider: str
    #: The distribution and entry point behind the provider, e.g. ``acme-sets, acme.sets:Sets``.
    source: str


@dataclass(frozen=True, slots=True)
class SetListing:
    """A registered set after loading it: its size and fingerprint, or why it failed."""

    info: SetInfo
    questions: int | None = None
    fingerprint: str | None = None
    error: str | None = None


class QuestionSetRegistry:
    """Providers found through entry points; each is imported and instantiated once."""

    def __init__(self, namespace: str = plugins.QUESTION_SETS) -> None:
        self.namespace = namespace
        self._providers: dict[str, QuestionSetProvider] = {}
        self._infos = {p.name: p for p in plugins.list_plugins(namespace)}

    def provider_names(self) -> list[str]:
        return sorted(self._infos)

    def provider(self, name: str) -> QuestionSetProvider:
        if name in self._providers:
            return self._providers[name]
        obj = plugins.load_plugin(self.namespace, name, kind="question-set provider")
        if isinstance(obj, type) or (callable(obj) and not isinstance(obj, QuestionSetProvider)):
            try:
                obj = obj()
            except Exception as e:
                raise self._error(name, "failed to start", e) from e
        if not isinstance(obj, QuestionSetProvider):
            raise PluginError(
                f"question-set provider {name!r} ({self._target(name)}) does not implement "
                "list_sets() and load_set(name)"
            )
        self._providers[name] = obj
        return obj

    def sets_of(self, provider: str) -> list[str]:
        """Set names offered by one provider; ``PluginError`` if it cannot say."""
        try:
            names = [str(n) for n in self.provider(provider).list_sets()]
        except (PluginError, UnknownNameError):
            raise
        except Exception as e:
            raise self._error(provider, "failed to list its sets", e) from e
        return sorted(names)

    def list_sets(self) -> tuple[list[SetInfo], list[PluginError]]:
        """Every registered set, and the providers that failed (reported, not fatal)."""
        infos: list[SetInfo] = []
        failures: list[PluginError] = []
        for provider in self.provider_names():
            try:
                names = self.sets_of(provider)
            except PluginError as e:
                failures.append(e)
                continue
            source = self._target(provider)
            infos.extend(SetInfo(n, provider, source) for n in names)
        return infos, failures

    def inventory(self) -> tuple[list[SetListing], list[PluginError]]:
        """Every registered set loaded once (for ``reval sets list``); failures kept apart."""
        infos, failures = self.list_sets()
        listings = []
        for info in infos:
            try:
                qs = self.load_from(info)
            except (QuestionSetError, PluginError) as e:
                listings.append(SetListing(info, error=str(e).splitlines()[0]))
                continue
            listings.append(SetListing(info, len(qs), qs.fingerprint))
        return listings, failures

    def resolve(self, name: str) -> SetInfo:
        """The one set called ``name`` or ``PROVIDER:SET``; unknown or ambiguous -> error."""
        provider, sep, set_name = name.partition(":")
        if sep and provider in self._infos:
            offered = self.sets_of(provider)
            if set_name in offered:
                return SetInfo(set_name, provider, self._target(provider))
            near = [f"{provider}:{s}" for s in suggest(set_name, offered)]
            raise UnknownNameError(KIND, name, near)
        infos, failures = self.list_sets()
        matches = [i for i in infos if i.name == name]
        if len(matches) == 1:
            return matches[0]
        if matches:
            choices = ", ".join(f"{i.provider}:{i.name}" for i in matches)
            raise InputError(
                f"{KIND} {name!r} is offered by several providers; name one: {choices}"
            )
        if failures:
            broken = "; ".join(str(f) for f in failures)
            raise PluginError(f"unknown {KIND} {name!r}, and some providers failed: {broken}")
        candidates = [i.name for i in infos] + [f"{i.provider}:{i.name}" for i in infos]
        raise UnknownNameError(KIND, name, suggest(name, candidates))

    def load(self, name: str) -> GoldenQuestionSet:
        """Load the registered set ``name`` (or ``PROVIDER:SET``), validated like a file."""
        info = self.resolve(name)
        return self.load_from(info)

    def load_from(self, info: SetInfo) -> GoldenQuestionSet:
        provider = self.provider(info.provider)
        try:
            result = provider.load_set(info.name)
        except QuestionSetError:
            raise
        except Exception as e:
            raise self._error(info.provider, f"failed to load set {info.name!r}", e) from e
        where = f"{info.provider}:{info.name}"
        if isinstance(result, GoldenQuestionSet):
            qs = result
        elif isinstance(result, os.PathLike | str):
            qs = build_set(read_set_file(Path(result)))
        elif isinstance(result, Mapping):
            header = dict(result)
            qs = build_set(RawSet(where, info.name, header, header.pop("questions", None)))
        elif isinstance(result, list):
            qs = build_set(RawSet(where, info.name, {}, result))
        else:
            got = type(result).__name__
            raise PluginError(
                f"question-set provider {info.provider!r} returned {got} for {info.name!r}"
            )
        return dataclasses.replace(qs, name=info.name, source=f"{where} ({info.source})")

    def _target(self, provider: str) -> str:
        info = self._infos[provider]
        return f"{info.distribution}, {info.target}"

    def _error(self, provider: str, what: str, e: BaseException) -> PluginError:
        return PluginError(
            f"question-set provider {provider!r} ({self._target(provider)}) {what}: "
            f"{type(e).__name__}: {e}"
        )
