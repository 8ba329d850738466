"""``reval eval --corpus``: one warning per set whose labels rest on changed documents, on
stderr before anything is measured and among the report's warnings (every format that
shows warnings: text, JSON, Markdown, GitHub, HTML).

Only when asked: the corpus is read only with ``--corpus``, and only when some set file
records document digests (a set without them costs one look at its file, and a set given
by name or provider is not checked). The labels are the ones scored (after
``--rel-level``); the verdict is not changed: a changed document is for a person to judge
again (``reval sets lint --corpus`` lists them, ``--fix-moved`` relabels moved ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from retrieval_eval.questions.model import GoldenQuestionSet


def warn_label_drift(question_sets: Sequence[GoldenQuestionSet], corpus: Path) -> list[str]:
    """Echo each set's warning to stderr; the warnings, for the report."""
    from retrieval_eval.questions.corpus import read_corpus
    from retrieval_eval.questions.digests_file import read_set_digests, set_path
    from retrieval_eval.questions.lint.drift import corpus_digests, label_drift

    recorded = [(qs, path) for qs in question_sets if (path := set_path(qs.source)) is not None]
    digests = [(qs, path, found) for qs, path in recorded if (found := read_set_digests(path))]
    if not digests:
        return []
    now = corpus_digests(read_corpus(corpus))
    warnings = []
    for qs, path, found in digests:
        line = drift_line(qs.name, path, corpus, label_drift(qs.questions, found, now).counts())
        if line is not None:
            click.echo(f"reval: warning: {line}", err=True)
            warnings.append(line)
    return warnings


def drift_line(name: str, path: Path, corpus: Path, counts: dict[str, int]) -> str | None:
    """The warning for one set's label counts (``DriftReport.counts``), or ``None``; the
    formats add their own ``warning:``."""
    from retrieval_eval.report.plural import plural

    drifted = counts["changed"] + counts["moved"] + counts["gone"]
    if not drifted:
        return None
    checked = drifted + counts["unchanged"]
    return (
        f"set {name!r}: {drifted} of {plural(checked, 'label')} with a digest "
        f"rest on documents changed since they were judged ({counts['changed']} changed, "
        f"{counts['moved']} moved, {counts['gone']} gone); see reval sets lint {path} "
        f"--corpus {corpus}"
    )
