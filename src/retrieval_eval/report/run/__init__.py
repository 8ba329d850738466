"""The report of one or more runs, in every format: ``text`` (rich, or plain text off a
terminal, with ``verdict_text``), ``json_format`` (the documented machine shape), ``junit``,
``markdown``, ``html_view``, ``trec`` (run file and qrels); ``render`` picks one by name;
``assertions`` is what a failed quality assertion in a test says.
"""
