"""The statistics every layer quotes, in one place and low in the layers: the exact
McNemar test on paired hit/miss outcomes and what a set's size can detect with it
(``mcnemar``), Wilson intervals for rates (``intervals``), and Holm's correction with the
paired bootstrap for many runs against one reference (``many_runs``). Pure arithmetic over
plain numbers: linting a set, scoring a run, judging it and comparing many quote the same
figures."""
