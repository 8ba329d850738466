"""Prompt templates: text files a team can override, versioned and digested.

A template has a ``[system]`` and a ``[user]`` section and ``$name`` placeholders
(``string.Template``: a JSON example in the text needs no escaping). Its first line may be
an HTML comment naming it and its version. The digest of the template's bytes is part of
every label's provenance (``llm:<model>@<digest>``) and of every cache key, so a changed
prompt is never mistaken for the one a label was made with.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from retrieval_eval.errors import InputError

_SECTION = re.compile(r"^\[(system|user)\]\s*$", re.MULTILINE)
_VERSION = re.compile(r"version\s+(\d+)")


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    name: str
    system: Template
    user: Template
    #: ``sha256:`` of the template file's bytes, first 12 hex digits.
    digest: str
    version: int | None
    source: str

    def render(self, **values: object) -> tuple[str, str]:
        """(system, user) with every placeholder filled; ``InputError`` naming a
        placeholder the template uses and nothing fills."""
        text = {k: str(v) for k, v in values.items()}
        try:
            return self.system.substitute(text).strip(), self.user.substitute(text).strip()
        except KeyError as e:
            raise InputError(f"{self.source}: unknown placeholder ${e.args[0]}") from e
        except ValueError as e:
            raise InputError(f"{self.source}: {e}") from e


def parse_template(name: str, data: bytes, source: str) -> PromptTemplate:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{source}: a prompt template must be UTF-8 text: {e}") from e
    parts = _SECTION.split(text)
    # parts: [preamble, "system", body, "user", body] in either order
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    if set(sections) != {"system", "user"} or len(parts) != 5:
        raise InputError(f"{source}: a prompt template needs one [system] and one [user] section")
    version = _VERSION.search(parts[0])
    return PromptTemplate(
        name,
        Template(sections["system"]),
        Template(sections["user"]),
        "sha256:" + hashlib.sha256(data).hexdigest()[:12],
        int(version.group(1)) if version else None,
        source,
    )


def load_template(name: str, path: Path | None = None) -> PromptTemplate:
    """The team's template at ``path``, else reval's default ``name`` (generate, judge)."""
    if path is not None:
        try:
            data = path.read_bytes()
        except OSError as e:
            raise InputError(f"cannot read prompt template {path}: {e.strerror or e}") from e
        return parse_template(name, data, str(path))
    default = resources.files(__package__).joinpath(f"prompts/{name}.md")
    return parse_template(name, default.read_bytes(), f"reval's default {name} prompt")
