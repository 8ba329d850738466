"""The verdict a run was given, as the store keeps it: its kind and baseline as columns
(for listings) and the whole verdict as a JSON document.

The verdict's record type belongs to the regression layer, above the store; the store
only needs its kind and baseline and writes the rest generically (a dataclass, field by
field). ``retrieval_eval.regression.stored`` reads the document back into a ``Verdict``.
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from typing import Any, Protocol


class VerdictLike(Protocol):
    """What the store needs of a verdict (``retrieval_eval.regression.verdict_records.Verdict``)."""

    @property
    def kind(self) -> str: ...

    @property
    def baseline_run_id(self) -> str | None: ...


#: Bumped when the stored shape changes incompatibly.
VERDICT_FORMAT = 1


def verdict_document(verdict: VerdictLike) -> str:
    """The verdict, a dataclass, as JSON text (enums as their values)."""
    if not dataclasses.is_dataclass(verdict) or isinstance(verdict, type):
        raise TypeError(f"a verdict must be a dataclass instance, got {type(verdict).__name__}")
    data: dict[str, Any] = dataclasses.asdict(verdict)
    data["format"] = VERDICT_FORMAT
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=_exact)


def _exact(value: object) -> str:
    """Exact numbers JSON has no type for (a ``Fraction``) as their text, e.g. "1/3"."""
    if isinstance(value, Fraction):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in a verdict")
