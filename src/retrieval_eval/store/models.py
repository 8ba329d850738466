"""The run store's tables, private to the store. The schema itself is created by the
migrations; these tables describe it for queries (a test checks both agree). They are
SQLAlchemy Core tables, not ORM classes: reval reads and writes rows, never objects, and
the ORM would cost every command that opens the store about a fifth more import time.

Structured parts of a run (metrics, breakdowns, parameters, description) are stored as
JSON text: exact float round trip on every backend and no dialect-specific JSON quirks
(PostgreSQL's JSON rejects NaN). Columns that listings and baselines filter or sort on are
real columns. Per-question outcomes are one row each, written in bulk.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

run_table = Table(
    "reval_runs",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(64), unique=True, nullable=False),
    Column("set_name", Text, nullable=False),
    Column("set_fingerprint", Text, nullable=False),
    Column("retriever_identifier", Text, nullable=False),
    Column("retriever_version", Text, nullable=False),
    Column("retriever_target", Text, nullable=False),
    Column("state", String(20), nullable=False),
    # ISO 8601 text, exactly as recorded (time zone included); *_ts are UTC epoch seconds
    # for ordering.
    Column("started_at", String(64), nullable=False),
    Column("finished_at", String(64), nullable=False),
    Column("started_ts", Double, nullable=False),
    Column("finished_ts", Double, nullable=False),
    Column("question_count", Integer, nullable=False),
    Column("error_count", Integer, nullable=False),
    Column("underfilled_count", Integer, nullable=False),
    Column("top1_hit_rate", Double, nullable=True),
    Column("top3_hit_rate", Double, nullable=True),
    Column("pinned", Boolean, default=False, nullable=False),
    Column("retriever_json", Text, nullable=False),
    Column("parameters_json", Text, nullable=False),
    Column("metrics_json", Text, nullable=False),
    Column("by_form_json", Text, nullable=False),
    Column("by_hard_class_json", Text, nullable=False),
    Column("latency_json", Text, nullable=True),
    # The verdict the run was given when saved (None: saved without a check).
    Column("verdict_kind", String(20), nullable=True),
    Column("baseline_run_id", String(64), nullable=True),
    Column("verdict_json", Text, nullable=True),
    # Which runs are "the same retriever" (``retrieval_eval.retrievers.lineage``):
    # baselines, drift and pruning are per set x lineage.
    Column("lineage", Text, nullable=True),
    # Set when a person accepted the run as a baseline (``reval runs accept``).
    Column("accepted_at", String(64), nullable=True),
    Column("accepted_by", Text, nullable=True),
    Column("accepted_reason", Text, nullable=True),
    # How the run became accepted (``stored_run.HowAccepted``; None: not accepted, so a
    # baseline only if pinned), the thresholds it was judged with (JSON) and the baseline
    # it passed against (a run id, or "FILE (run ID)" for a baseline file).
    Column("accepted_how", String(20), nullable=True),
    Column("accepted_thresholds_json", Text, nullable=True),
    Column("accepted_baseline", Text, nullable=True),
    # Set on a run rescored from a stored one (``reval runs rescore``): the source run's id
    # and the label fingerprint it was scored on. None: the retriever was asked.
    Column("rescored_from", String(64), nullable=True),
    Column("rescored_from_fingerprint", Text, nullable=True),
    # The IR measures' means (``reval eval --measures``) as JSON, name -> [value, count,
    # left out], their no-answer convention ("reval" or "trec_eval") and the grade a
    # document needed to be expected. None: no measures asked / stored before (level 1).
    Column("measures_json", Text, nullable=True),
    Column("measure_convention", String(20), nullable=True),
    Column("relevance_level", Integer, nullable=True),
    # Newest first (the listings' order, ``pk`` breaking ties) overall, within a set, and
    # within a set x retriever identifier (history, baselines).
    Index("ix_reval_runs_started", "started_ts", "pk"),
    Index("ix_reval_runs_set_started", "set_name", "started_ts", "pk"),
    Index(
        "ix_reval_runs_set_retriever_started",
        "set_name",
        "retriever_identifier",
        "started_ts",
        "pk",
    ),
    Index("ix_reval_runs_set_lineage_started", "set_name", "lineage", "started_ts", "pk"),
)

label_table = Table(
    "reval_run_labels",
    metadata,
    Column("run_pk", ForeignKey("reval_runs.pk", ondelete="CASCADE"), primary_key=True),
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
    Index("ix_reval_run_labels_key_value", "key", "value"),
)

#: One question of one run, in the run's question order (``position``).
outcome_table = Table(
    "reval_outcomes",
    metadata,
    Column("run_pk", ForeignKey("reval_runs.pk", ondelete="CASCADE"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("question_id", Text, nullable=False),
    Column("form", String(20), nullable=False),
    Column("hard_class", Text, nullable=True),
    # JSON arrays of ids.
    Column("expected_ids", Text, nullable=False),
    Column("raw_ids", Text, nullable=False),
    Column("ranked_ids", Text, nullable=False),
    # "k:0|1" pairs, comma separated, e.g. "1:0,3:1"; empty when the retrieval failed.
    Column("hits", Text, nullable=False),
    Column("latency_ms", Double, nullable=True),
    Column("error_kind", Text, nullable=True),
    Column("error_message", Text, nullable=True),
    Column("underfilled", Boolean, default=False, nullable=False),
    # JSON array of the retriever's scores, aligned with ``raw_ids`` (null where a
    # result had none); None when the retriever gave no scores at all.
    Column("raw_scores", Text, nullable=True),
    # JSON array of notes on how the answer was made (a fused retriever's skipped
    # member); None when there are none.
    Column("notes", Text, nullable=True),
    # The question as asked; None when a script saved a run without its texts, which
    # reports show by id alone and say so.
    Column("question_text", Text, nullable=True),
    # Compact JSON object document id -> grade (0: judged not relevant) of a question
    # whose labels say more than its expected ids; None: each expected id at grade 1 and
    # nothing else judged (plain labels, and every row stored before grades were kept).
    Column("judgments", Text, nullable=True),
)
