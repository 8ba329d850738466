"""The error hierarchy. Library code raises these; only the CLI maps them to exit codes.

Two families matter to callers: ``InputError`` (the user's input is wrong: fix it and
retry) and ``InfrastructureError`` (a retriever, a server or the database failed).
"""

from __future__ import annotations


class RevalError(Exception):
    """Base of every error reval raises on purpose."""


class InputError(RevalError):
    """Bad input or usage: a malformed file, an unknown name, an invalid option."""


class QuestionSetError(InputError):
    """A question set could not be loaded; raised by the question-set loaders.

    ``problems`` holds every problem found, each already naming file, line and question
    id, so that a user fixes them all in one pass.
    """

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or [message]


class UnknownNameError(InputError):
    """A set, retriever or run named by the user does not exist; raised by registries."""

    def __init__(
        self, kind: str, name: str, suggestions: list[str] | None = None, hint: str = ""
    ) -> None:
        self.kind, self.name, self.suggestions = kind, name, suggestions or []
        quoted = ", ".join(repr(s) for s in self.suggestions)
        meant = f"; did you mean {quoted}?" if quoted else ""
        super().__init__(f"unknown {kind} {name!r}{meant}{f' ({hint})' if hint else ''}")


class ConfigError(InputError):
    """A configuration file (reval.toml) or option is invalid."""


class CorpusError(InputError):
    """A corpus cannot be indexed: missing, empty, malformed JSONL (with file:line), a
    duplicate document id. Raised by ``retrieval_eval.corpus`` before anything is written."""


class PluginError(InputError):
    """A plugin failed to import or to load; names the entry point and the cause."""


class InfrastructureError(RevalError):
    """Something outside the user's input failed: a retriever, a server, the database."""


class RetrieverError(InfrastructureError):
    """A call to a retriever failed; raised by the retriever client.

    ``kind`` is one of: unavailable, timeout, rejected, unauthenticated, internal, contract.
    """

    kind = "internal"

    def __init__(self, target: str, details: str, code: str | None = None) -> None:
        self.target, self.details, self.code = target, details, code
        code_part = f" [{code}]" if code else ""
        super().__init__(f"retriever {target}: {self.kind}{code_part}: {details}")


class RetrieverUnavailable(RetrieverError):
    """The retriever could not be reached (after retries)."""

    kind = "unavailable"


class RetrieverTimeout(RetrieverError):
    """The call exceeded its deadline."""

    kind = "timeout"


class RetrieverRejected(RetrieverError):
    """The retriever refused the request (INVALID_ARGUMENT, FAILED_PRECONDITION, ...)."""

    kind = "rejected"


class RetrieverUnauthenticated(RetrieverError):
    """The retriever refused the credentials (UNAUTHENTICATED, PERMISSION_DENIED)."""

    kind = "unauthenticated"


class RetrieverInternal(RetrieverError):
    """The retriever failed while answering (INTERNAL, UNKNOWN, malformed response)."""

    kind = "internal"


class RetrieverContractError(RetrieverError):
    """The retriever's answer breaks the contract (an empty, blank or oversized id, more results
    than asked, an unparsable or oversized message). Never retried: it cannot succeed."""

    kind = "contract"


class IncompleteRun(InfrastructureError):
    """A run had more errored questions than ``--max-errors`` allows (verdict
    ``incomplete``); raised by ``reval eval`` after the report and the runs are written."""


class StoreError(InfrastructureError):
    """The run store failed: unreachable, corrupted or locked database."""


class Interrupted(RevalError):
    """The user interrupted a run (Ctrl-C, or SIGTERM); what was measured has been kept.

    ``signum`` is the signal that stopped it (None: SIGINT).
    """

    def __init__(self, message: str, *, signum: int | None = None) -> None:
        super().__init__(message)
        self.signum = signum
