"""``runs history``: one set × retriever over time, in ``text``, ``json_format``, ``markdown``
and ``html_view``.
"""
