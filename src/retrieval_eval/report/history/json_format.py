"""``runs history`` as JSON: the library's records, field by field.

History (``"kind": "history"``): ``set``, ``retriever``, ``entries`` (each ``run_id``,
``started_at``, ``variant``, ``state``, ``labels``, ``questions``, ``errors``, ``top1``
and ``top3`` as ``{"rate", "low", "high", "successes", "count"}`` | null, ``verdict``
(the stored verdict, as in the run report, or null), ``pinned``), ``flaky`` (``{"id",
"k", "flips", "hits", "answered", "variant"}``: flips are counted within one variant),
``never_hit`` (within the newest variant, named by ``never_hit_variant`` when the
history holds several), ``ks``, ``fingerprints``; each entry also has ``accepted``
(``{"by", "at", "reason"}`` or null) and ``measures`` (the IR measures it stored, as in
the run report: ``{"convention", "values"}``, ``values`` empty when none were asked).

Label versions: each entry's ``set_fingerprint``, ``label_version`` (the fingerprint's
first hex digits, as every view names it) and ``rescored_from`` (the run it was rescored
from, or null); ``label_versions`` (oldest first: ``{"name", "fingerprint", "runs",
"rescored"}``), ``label_version_shown`` (``all`` or the one ``--label-version`` chose),
``side_by_side`` (with several versions, newest first: ``{"source_run_id", "variant",
"by_label_version": {name: run_id}}``, a ranking and its rescores), ``never_hit_labels``
(the version ``never_hit`` is about, when there are several) and each flaky question's
``labels`` (the version its flips were counted on, when there are several, else null).
"""

from __future__ import annotations

from typing import Any

from retrieval_eval.comparison.results import History, HistoryEntry
from retrieval_eval.records.json_shape import measures_to_dict
from retrieval_eval.records.metrics import RateEstimate
from retrieval_eval.report.baseline_notes import acceptance_dict
from retrieval_eval.report.run.json_format import SCHEMA_VERSION, verdict_to_dict


def history_to_dict(history: History) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "history",
        "set": history.set_name,
        "retriever": history.retriever,
        "entries": [_entry(e) for e in history.entries],
        "flaky": [
            {
                "id": f.question_id,
                "k": f.k,
                "flips": f.flips,
                "hits": f.hits,
                "answered": f.answered,
                "variant": f.variant,
                "labels": f.labels or None,
            }
            for f in history.flaky
        ],
        "never_hit": list(history.never_hit),
        "never_hit_variant": history.never_hit_variant or None,
        "ks": list(history.ks),
        "fingerprints": list(history.fingerprints),
        "label_versions": [
            {"name": v.name, "fingerprint": v.fingerprint, "runs": v.runs, "rescored": v.rescored}
            for v in history.label_versions
        ],
        "label_version_shown": history.labels_shown,
        "side_by_side": [
            {
                "source_run_id": row.source_run_id,
                "variant": row.variant,
                "by_label_version": {name: e.run_id for name, e in row.by_version.items()},
            }
            for row in history.side_by_side
        ],
        "never_hit_labels": history.never_hit_labels or None,
    }


def _entry(e: HistoryEntry) -> dict[str, Any]:
    return {
        "run_id": e.run_id,
        "started_at": e.started_at.isoformat(),
        "variant": e.variant,
        "state": e.state,
        "labels": dict(e.labels),
        "questions": e.question_count,
        "errors": e.errors,
        "top1": _estimate(e.top1),
        "top3": _estimate(e.top3),
        "verdict": None if e.verdict is None else verdict_to_dict(e.verdict),
        "pinned": e.pinned,
        "accepted": acceptance_dict(e.acceptance),
        "measures": measures_to_dict(e.measures, e.measure_convention),
        "set_fingerprint": e.set_fingerprint,
        "label_version": e.label_version,
        "rescored_from": e.rescored_from,
    }


def _estimate(e: RateEstimate | None) -> dict[str, Any] | None:
    if e is None:
        return None
    return {"rate": e.rate, "low": e.low, "high": e.high, "successes": e.successes,
            "count": e.count}  # fmt: skip
