"""Name a change of variant inside a lineage: a before/after comparison (a chunking
retune, a new model) is reported as such beside the verdict, in every format."""

from __future__ import annotations

from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.fingerprint import variant_parts

#: Variant parts in the order they are named.
_PARTS = ("identifier", "version", "model", "chunking", "pipeline", "separator")


def variant_change(current: RunResult, baseline: RunResult) -> str | None:
    """E.g. ``chunking words=60,overlap=10 -> words=150,overlap=30``; None when the
    baseline is the same variant."""
    now, before = variant_parts(current), variant_parts(baseline)
    changed = [
        f"{part} {_shown(before[part])} -> {_shown(now[part])}"
        for part in _PARTS
        if now[part] != before[part]
    ]
    return "; ".join(changed) or None


def _shown(value: str) -> str:
    return value if value else "(none)"
