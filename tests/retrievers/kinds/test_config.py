"""reval.toml entries with a ``kind``: every problem is one ConfigError naming the file,
the entry and the key, and ``reval`` exits 2 on it; the identity changes with what the
entry is (a new template is a new variant of the same lineage), never with a secret."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from retrieval_eval.errors import ConfigError
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.retrievers.config import load_config
from retrieval_eval.retrievers.kinds.base import describe_kind
from retrieval_eval.retrievers.listing import list_retrievers
from retrieval_eval.retrievers.resolve import resolve
from retrieval_eval.retrievers.specs import KindSpec

REVAL = str(Path(sys.executable).parent / "reval")
HTTP = """
[retrievers.search-api]
kind = "http"
url = "http://127.0.0.1:9200/docs/_search"
method = "POST"
body = { query = { match = { text = "{question}" } }, size = "{limit}" }
ids = "hits.hits[*]._id"
scores = "hits.hits[*]._score"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "reval.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_the_documented_http_entry_parses_and_resolves_to_its_kind(tmp_path: Path) -> None:
    path = write(tmp_path, HTTP)
    resolved = resolve("search-api", config_path=path)
    assert isinstance(resolved, KindSpec)
    assert resolved.config.common.kind == "http"
    [info] = [i for i in list_retrievers(path) if i.name == "search-api"]
    assert (info.kind, info.detail) == ("http", "http POST 127.0.0.1:9200/docs/_search")


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ('kind = "htp"\nurl = "http://x"', "key 'kind': unknown kind 'htp'; did you mean 'http'?"),
        ('kind = "ftp"', "key 'kind': unknown kind 'ftp'; known kinds: http, command, postgres"),
        (
            'kind = "http"\nurl = "http://h/s"\nids = "a"\nbody = "{question}"\nbdy = 1',
            "unknown key 'bdy' for kind 'http'; did you mean 'body'?",
        ),
        ('kind = "http"\nids = "a"', "missing required key 'url'"),
        ('kind = "http"\nurl = "http://h/s"\nbody = "{question}"', "key 'ids': missing"),
        (
            'kind = "http"\nurl = "http://h/s"\nbody = "{question}"\nids = "hits[*"',
            "key 'ids': 'hits[*' is not a JMESPath expression",
        ),
        (
            'kind = "http"\nurl = "http://u:secret@h/s"\nbody = "{question}"\nids = "a"',
            "key 'url': holds credentials",
        ),
        ('kind = "http"\nurl = "ftp://h/s"\nbody = "{question}"\nids = "a"', "key 'url'"),
        (
            'kind = "http"\nurl = "http://h/s"\nmethod = "GET"\nbody = "{question}"\nids = "a"',
            "key 'body': a GET request has no body",
        ),
        (
            'kind = "http"\nurl = "http://h/s"\nbody = { q = "fixed" }\nids = "a"',
            "key 'body': the question goes nowhere",
        ),
        (
            'kind = "http"\nurl = "http://h/s"\nbody = "{question}"\nids = "a"\ntimeout = -1',
            "key 'timeout': must be a positive number",
        ),
        ('kind = "command"', "missing required key 'command'"),
        ('kind = "command"\ncommand = []', "key 'command': must be a non-empty list of strings"),
        ('kind = "command"\ncommand = ["x"]\ncwd = "nowhere"', "key 'cwd': folder not found"),
        (
            'kind = "postgres"\ndsn = "postgresql://u:hunter2@h/db"\nquery = "select :question"',
            "key 'dsn': holds a password",
        ),
        (
            'kind = "postgres"\ndsn = "postgresql://h/db"\nquery = "select :embedding, :question"',
            "key 'query': uses :embedding, which needs 'embedder'",
        ),
        (
            'kind = "postgres"\ndsn = "postgresql://h/db"\nquery = "select :question"\n'
            'embedder = "wordllama"',
            "key 'embedder': is given but the query does not use :embedding",
        ),
        (
            'kind = "postgres"\ndsn = "postgresql://h/db"\nquery = "select :embedding"\n'
            'embedder = "wordllama"\nembedder_options = 64',
            "key 'embedder_options': must be a table, got 64",
        ),
        (
            'kind = "postgres"\ndsn = "postgresql://u@h/db"\nquery = "select 1"',
            "key 'query': uses neither :question nor :embedding",
        ),
        ('kind = "postgres"\nquery = "select :question"', "exactly one of 'dsn' and 'dsn_env'"),
    ],
)
def test_bad_entries_name_file_entry_and_key(tmp_path: Path, entry: str, expected: str) -> None:
    message = error_of(tmp_path, f"[retrievers.r]\n{entry}\n")
    assert message.startswith(f"{tmp_path / 'reval.toml'} [retrievers.r]: ")
    assert expected in message
    assert "hunter2" not in message and "secret" not in message


@pytest.mark.parametrize("command", ["eval", "diff", "sets draft", "check-retriever", "serve"])
def test_cli_exits_2_with_one_line_for_a_bad_entry(tmp_path: Path, command: str) -> None:
    path = write(
        tmp_path, '[retrievers.r]\nkind = "http"\nurl = "http://h/s"\nbody = "{question}"\n'
    )
    args = {
        "eval": ["eval", "--set", str(questions_path()), "--retriever", "r", "--no-save"],
        "diff": [
            "diff",
            "--questions",
            str(questions_path()),
            "--retriever",
            "r",
            "--retriever",
            "bm25:nowhere",
        ],
        "sets draft": [
            "sets",
            "draft",
            str(questions_path()),
            "--corpus",
            str(corpus_path()),
            "--retriever",
            "r",
            "--out",
            str(tmp_path / "draft.yaml"),
        ],
        "check-retriever": ["check-retriever", "r"],
        "serve": ["serve", "r"],
    }[command]
    done = subprocess.run(
        [REVAL, *args, "--config", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"reval: error: {path} [retrievers.r]: key 'ids': missing: a JMESPath to the ranked "
        "ids, e.g. 'hits.hits[*]._id'"
    ]


def test_an_unset_header_variable_is_a_config_error_naming_it_not_a_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KINDS_TEST_TOKEN", raising=False)
    path = write(tmp_path, HTTP + 'headers = { Authorization = "Bearer ${KINDS_TEST_TOKEN}" }\n')
    resolved = resolve("search-api", config_path=path)
    assert isinstance(resolved, KindSpec)
    with pytest.raises(ConfigError, match="key 'headers': environment variable KINDS_TEST_TOKEN"):
        resolved.open()


def _version(tmp_path: Path, text: str) -> str:
    entry = load_config(write(tmp_path, text))["search-api"]
    description = describe_kind(entry)  # type: ignore[arg-type]
    assert description.identifier == "search-api"  # the name is the lineage
    return description.version


def test_identity_follows_the_template_and_endpoint_never_the_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _version(tmp_path, HTTP)
    assert base.startswith("http ")
    assert _version(tmp_path, HTTP) == base
    assert _version(tmp_path, HTTP.replace('text = "{question}"', 'title = "{question}"')) != base
    assert _version(tmp_path, HTTP.replace("9200", "9201")) != base
    with_secret = HTTP + 'headers = { Authorization = "Bearer ${KINDS_TEST_TOKEN}" }\n'
    monkeypatch.setenv("KINDS_TEST_TOKEN", "first")
    one = _version(tmp_path, with_secret)
    monkeypatch.setenv("KINDS_TEST_TOKEN", "second")
    assert _version(tmp_path, with_secret) == one
    entry = load_config(write(tmp_path, with_secret))["search-api"]
    assert "second" not in repr(describe_kind(entry))  # type: ignore[arg-type]
    assert _version(tmp_path, HTTP + 'version = "2"\n') == base + " 2"


def test_a_command_entry_changes_variant_when_its_script_changes(tmp_path: Path) -> None:
    script = tmp_path / "retriever.py"
    script.write_text("print('one')\n")
    text = '[retrievers.search-api]\nkind = "command"\ncommand = ["python3", "retriever.py"]\n'
    before = _version(tmp_path, text)
    script.write_text("print('two')\n")
    assert _version(tmp_path, text) != before
