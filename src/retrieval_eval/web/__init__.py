"""``reval ui``: a local, read-only web viewer over the run store.

The pages are the report's own HTML views (``report.*.html_view``) served live: the runs list with
filters, a run, a set × retriever's history, and a comparison of runs picked in the list.
Starlette and uvicorn come with the ``ui`` extra; nothing here writes to the store.
"""

from __future__ import annotations

from retrieval_eval.web.address import LOOPBACK, parse_address
from retrieval_eval.web.app import create_app

__all__ = ["LOOPBACK", "create_app", "parse_address"]
