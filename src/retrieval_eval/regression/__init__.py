"""Regression verdicts: is the current run worse than its baseline, and is it noise?

``verdict`` judges a run against its baseline (``judge``, ``compare``), ``verdict_records``
holds what a verdict says, ``fingerprint`` what makes two runs comparable (benchmark)
and what changed between them (variant).
"""
