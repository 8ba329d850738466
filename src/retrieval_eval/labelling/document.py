"""A set file as a round-trip YAML document: what is not changed keeps its bytes.

Drafts and judgements are written with ruamel.yaml's round-trip mode, so a labeller's
comments, key order, quoting and blank lines survive every save. Writers take an
exclusive lock on ``FILE.lock`` beside the file and re-read the file under it, so two
writers (two browser tabs, a tab and a script) never overwrite each other: each one
changes only its own question in the newest file. The file is replaced atomically.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from retrieval_eval.atomic import write_atomically
from retrieval_eval.errors import InputError
from retrieval_eval.questions.formats import set_format

T = TypeVar("T")


#: How far a block sequence's items and their dashes are indented: reval's own layout.
Layout = tuple[int, int]
OWN_LAYOUT: Layout = (4, 2)


def _yaml(layout: Layout = OWN_LAYOUT) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 100
    yaml.indent(mapping=2, sequence=layout[0], offset=layout[1])
    yaml.representer.add_representer(type(None), _null)
    return yaml


def _null(representer: Any, _data: None) -> Any:
    """``null`` written out, so an undecided candidate reads as undecided."""
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def require_yaml(path: Path) -> None:
    if set_format(path) != "yaml" or path.suffix.lower() == ".gz":
        raise InputError(f"{path}: drafts and judgements are YAML files (.yaml or .yml)")


def version_of(data: bytes) -> str:
    """The file's version as the page and writers compare it."""
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16]


def load_document(path: Path) -> tuple[Any, str]:
    """The round-trip document and its version; ``InputError`` naming the file on failure."""
    require_yaml(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from e
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not a readable YAML set: {e}".splitlines()[0]) from e
    return parse_document(text, path), version_of(data)


def parse_document(text: str, path: Path) -> Any:
    """The round-trip document ``text`` (read from ``path``, which errors name) holds."""
    try:
        document = _yaml().load(text)
    except YAMLError as e:
        raise InputError(f"{path}: not a readable YAML set: {e}".splitlines()[0]) from e
    if not isinstance(document, dict) or not isinstance(document.get("questions"), list):
        raise InputError(f"{path}: expected a mapping with a 'questions' list")
    return document


def dump_document(document: Any, layout: Layout = OWN_LAYOUT) -> str:
    out = io.StringIO()
    _yaml(layout).dump(document, out)
    return out.getvalue()


def layout_of(text: str) -> Layout:
    """The sequence layout a YAML text uses (a set PyYAML wrote puts dashes at the parent's
    column: ``(2, 0)``), so rewriting one label does not re-indent the whole file."""
    from ruamel.yaml.util import load_yaml_guess_indent

    _data, indent, dash = load_yaml_guess_indent(text)
    dash = dash or 0
    return max(indent or 2, dash + 2), dash


def write_document(document: Any, path: Path, layout: Layout = OWN_LAYOUT) -> str:
    """Write atomically (sequences laid out as ``layout``); returns the new version."""
    data = dump_document(document, layout).encode("utf-8")
    write_atomically(path, data)  # keeps the shared file's mode and group
    return version_of(data)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path.lock`` (held across read, change and write)."""
    lock_path = path.with_name(path.name + ".lock")
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


#: The document each file held after this process last wrote it, by resolved path:
#: re-parsing a large draft costs seconds, and a viewer is usually the only writer.
_WRITTEN: dict[Path, tuple[str, Any]] = {}


def update_document(path: Path, change: Callable[[Any], T]) -> tuple[T, str]:
    """Under the lock: read the newest file, apply ``change``, write it back.

    Returns what ``change`` returned and the new version. The file is parsed again
    unless its bytes are the ones this process last wrote.
    """
    key = path.resolve()
    with locked(path):
        cached = _WRITTEN.pop(key, None)
        if cached is not None and path.exists() and version_of(path.read_bytes()) == cached[0]:
            document = cached[1]
        else:
            document, _version = load_document(path)
        result = change(document)
        version = write_document(document, path)
        _WRITTEN[key] = (version, document)
        return result, version


def find_question(document: Any, question_id: str) -> Any:
    for question in document["questions"]:
        if isinstance(question, dict) and question.get("id") == question_id:
            return question
    raise InputError(f"no question {question_id!r} in the set")


@contextmanager
def trailing_comments_kept(node: Any) -> Iterator[None]:
    """Keep the blank lines and comments that follow ``node`` after it while it changes.

    ruamel.yaml attaches what follows a block to the deepest last element inside it, so a
    key or item added to ``node`` would otherwise land after the next question's comment.
    """
    tokens = []
    for collection in _last_chain(node):
        if collection.ca.end:
            tokens += collection.ca.end
            collection.ca.end = []
    try:
        yield
    finally:
        if tokens:
            chain = _last_chain(node)
            if chain:
                last = chain[-1]
                if last.ca.comment is None:  # the emitter writes end comments only then
                    last.ca.comment = [None, None]
                last.ca.end = [*(last.ca.end or []), *tokens]


def _last_chain(node: Any) -> list[Any]:
    """``node`` and its last elements, down to the deepest block collection."""
    chain = []
    current = node
    while isinstance(current, CommentedMap | CommentedSeq) and len(current):
        if current.fa.flow_style():
            break
        chain.append(current)
        current = current[next(reversed(current))] if isinstance(current, dict) else current[-1]
    return chain
