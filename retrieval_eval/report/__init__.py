"""Reports over evaluated runs and their regression verdicts.

One module per format: ``json_report`` (the documented machine shape), ``terminal``
(rich, or plain text off a terminal), ``junit`` (CI test results), ``markdown`` (a
pull-request comment) and ``trec`` (run file + qrels for trec_eval, ranx, ir_measures).
Every format renders the same records: a sequence of ``RunReport``.
"""

from __future__ import annotations

from retrieval_eval.report.model import RunReport

__all__ = ["RunReport"]
