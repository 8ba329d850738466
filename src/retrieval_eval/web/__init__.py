"""``reval ui``: a local, read-only web viewer over the run store.

The pages are the report's own HTML views (``report.*.html_view``) served live: the runs list with
filters, a run, a set × retriever's history, and a comparison of runs picked in the list.
Starlette and uvicorn come with the ``ui`` extra; nothing here writes to the store.
``app`` builds the application (``create_app``), ``address`` parses where it listens.
"""
