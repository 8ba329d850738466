"""What every HTML view shares: one Jinja2 environment (``page``), the base templates and
the assets. A view is a self-contained file or a page of ``reval ui``; each subject's view
and renderer live with its other formats (``report.run.html_view``,
``report.comparison.html_view``, ``report.history.html_view``).

Charts are drawn by Chart.js, whose minified build is vendored from its npm package
(``assets/VENDORED.json`` records the version and checksum; ``tools/vendor_chartjs.py``
refreshes it).
"""
