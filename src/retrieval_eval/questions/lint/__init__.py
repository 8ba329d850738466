"""Label checks for golden sets: wrong forms, duplicates, missing targets, runs that say
a label is suspect, and how many questions a regression threshold needs.

``lint`` (``lint_set``, ``LintReport``), ``options`` (``LintOptions``), ``findings``
(``Finding``, ``FindingKind``), ``overlap`` (the MATCH/GAP measure, reusable on its own:
``OverlapMeter``, ``vocabulary_overlap``, ``suggested_form``, ``best_cutoff``). numpy and
the stemmer come with the ``lint`` extra.
"""
