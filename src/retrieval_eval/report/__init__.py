"""Reports, by subject, each with its formats side by side.

``run/`` (one or more evaluated runs and their verdicts: text, JSON, JUnit, Markdown,
HTML, TREC), ``comparison/`` (``runs compare``), ``history/`` (``runs history``),
``runs_list`` (``runs list``), ``diff`` (``reval diff``), ``tuning`` (``fusion tune``).
Shared: ``model`` (helpers over the judged run every run format renders), ``html/`` (the
Jinja2 environment, base templates and assets), ``text_style``, ``safe_text``, ``plural``.
"""
