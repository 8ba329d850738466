"""One Jinja2 environment for every HTML view, static report or ``reval ui`` page.

A static report inlines its stylesheet and scripts (Chart.js included) so the file works
offline and loads nothing; a page served by ``reval ui`` links the same files from the
viewer's own address instead. A Content-Security-Policy in each page enforces it: the
browser refuses any request to another origin.
"""

from __future__ import annotations

import json
from contextlib import suppress
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from retrieval_eval.version import __version__

#: Files under ``assets/``, in the order a page loads them.
STYLES = ("reval.css",)
SCRIPTS = ("chart.umd.min.js", "reval.js")

#: A static report may run its own inline code and nothing else.
STATIC_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
#: A served page loads only from the viewer itself.
SERVED_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'"
)


def page_context() -> dict[str, Any]:
    """What every page's footer says: the version and when it was made."""
    return {"version": __version__, "generated": f"{datetime.now(UTC):%Y-%m-%d %H:%M UTC}"}


@cache
def asset(name: str) -> str:
    """The text of a file under ``assets/`` (checked-in, shipped as package data)."""
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def _rate(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _signed(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:+.{digits}f}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


#: ``<``, ``>`` and ``&`` as JSON escapes: inside ``<script>`` neither ``</script>`` nor
#: ``<!--<script>`` (which makes the element swallow the rest of the page) can appear.
_SCRIPT_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def script_json(value: Any) -> Markup:
    """JSON safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.translate(_SCRIPT_ESCAPES))


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates (a private per-user temporary directory; an
    entry is used only while its template's source is unchanged), so that a viewer or a
    report does not compile the same templates again each time it starts. A cache that
    cannot be written is not used."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with suppress(OSError):
            super().dump_bytecode(bucket)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    try:
        return _CompiledTemplates()
    except (OSError, RuntimeError):  # no safe temporary directory
        return None


def duration_text(seconds: float) -> str:
    """A run's length as people say it: "38 ms", "4.2 s", "3 min 07 s"."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


@cache
def environment(package: str | None = None) -> jinja2.Environment:
    """The environment of the report's templates; with ``package``, that package's own
    ``templates/`` too (its pages extend the same base, e.g. the judging page)."""
    loader: jinja2.BaseLoader = jinja2.PackageLoader(__package__, "templates")
    if package is not None:
        loader = jinja2.ChoiceLoader([jinja2.PackageLoader(package, "templates"), loader])
    env = jinja2.Environment(
        loader=loader,
        bytecode_cache=_bytecode_cache(),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(
        rate=_rate, signed=_signed, ms=_ms, chart_json=script_json, duration=duration_text
    )
    return env


def render_page(
    template: str, *, assets_url: str | None = None, package: str | None = None, **context: Any
) -> str:
    """Render a page; ``assets_url`` links the assets from there instead of inlining;
    ``package`` adds that package's templates (see ``environment``)."""
    if assets_url is None:
        head = {
            "policy": STATIC_POLICY,
            "styles": [Markup(asset(n)) for n in STYLES],
            "scripts": [Markup(asset(n).replace("</script", "<\\/script")) for n in SCRIPTS],
            "style_links": [],
            "script_links": [],
        }
    else:
        head = {
            "policy": SERVED_POLICY,
            "styles": [],
            "scripts": [],
            "style_links": [f"{assets_url}/{n}" for n in STYLES],
            "script_links": [f"{assets_url}/{n}" for n in SCRIPTS],
        }
    return (
        environment(package)
        .get_template(template)
        .render(head=head, served=assets_url is not None, **context)
    )
