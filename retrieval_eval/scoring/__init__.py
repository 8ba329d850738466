"""The scoring protocol and metrics: from a ranked list of result ids to hits and rates.

Pure functions, no I/O: ``protocol`` turns one response into a ``QuestionOutcome``;
``metrics`` and ``intervals`` aggregate outcomes into ``GroupMetrics``.
"""
