"""``runs compare``: many runs side by side, in ``text``, ``json_format``, ``markdown`` and
``html_view``.
"""
