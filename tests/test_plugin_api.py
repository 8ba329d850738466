"""The plugin API: the names it loads on first use are the objects their modules define
and are not loaded before; an index file is refused with the error that names its path,
what it is to the plugin and the fix; a plugin's command line spells its options alike."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from retrieval_eval import plugin_api
from retrieval_eval.errors import InputError


class ProbeIndexError(InputError):
    pass


def _read(directory: Path) -> dict[str, Any]:
    return plugin_api.read_index_file(
        directory, "meta.json", plugin="probe", fmt="probe-index", version=2, what="metadata",
        parse=lambda data: {"size": int(data["size"])}, error=ProbeIndexError,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("name", "module"),
    sorted((n, m) for m, names in plugin_api.ON_FIRST_USE.items() for n in names),
)
def test_a_name_loaded_on_first_use_is_its_modules_object(name: str, module: str) -> None:
    value = getattr(plugin_api, name)
    assert value is getattr(importlib.import_module(module), name)
    assert vars(plugin_api)[name] is value
    assert name in plugin_api.__all__


def test_every_name_of_all_is_there_and_an_unknown_one_is_an_attribute_error() -> None:
    assert [n for n in plugin_api.__all__ if not hasattr(plugin_api, n)] == []
    with pytest.raises(AttributeError, match=r"module 'retrieval_eval\.plugin_api' has no"):
        plugin_api.nope  # type: ignore[attr-defined]  # noqa: B018


def test_importing_the_api_loads_no_reader_http_client_grpc_or_click() -> None:
    code = (
        "import json, sys\n"
        "import retrieval_eval.plugin_api\n"
        "watch = ('retrieval_eval.corpus.reader', 'retrieval_eval.retrievers.http_json',\n"
        "         'urllib.request', 'grpc', 'click', 'rich')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m in watch)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    assert json.loads(out) == []


def test_an_index_file_is_read_once_it_is_checked(tmp_path: Path) -> None:
    (tmp_path / "meta.json").write_text(
        json.dumps({"format": "probe-index", "format_version": 2, "size": 7}), "utf-8"
    )
    assert _read(tmp_path) == {"size": 7}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, r"index not found: .*missing \(build it with 'reval probe index'\)"),
        ("", r"not a probe index \(no meta.json\)"),
        ("{ not json", r"meta.json: corrupt index metadata: Expecting"),
        (json.dumps({"format": "other"}), r"meta.json: not a probe index metadata$"),
        (json.dumps({"format": "probe-index", "format_version": 9}),
         r"index format version 9 is not supported \(this version reads 2\); rebuild it with "
         r"'reval probe index'"),
        (json.dumps({"format": "probe-index", "format_version": 2}),
         r"meta.json: corrupt index metadata: missing or bad 'size'"),
    ],
)  # fmt: skip
def test_a_bad_index_file_is_refused_with_its_path_and_the_fix(
    tmp_path: Path, content: str | None, message: str
) -> None:
    directory = tmp_path / ("missing" if content is None else "index")
    if content is not None:
        directory.mkdir()
        if content:
            (directory / "meta.json").write_text(content, "utf-8")
    with pytest.raises(ProbeIndexError, match=message):
        _read(directory)


def test_a_plugins_commands_take_the_shared_options() -> None:
    @click.group()
    def probe() -> None:
        """A plugin's group."""

    @probe.command("index")
    @plugin_api.index_options("Where the index goes.")
    def index(**options: Any) -> None:
        click.echo(json.dumps(options, default=str, sort_keys=True))

    @probe.command("serve")
    @plugin_api.serve_options
    def serve(**options: Any) -> None:
        click.echo(json.dumps(options, default=str, sort_keys=True))

    runner = CliRunner()
    done = runner.invoke(probe, ["index", "c.jsonl", "--out", "i", "--chunk-words", "5"],
                         catch_exceptions=False)  # fmt: skip
    assert json.loads(done.output) == {
        "chunk_overlap": 0, "chunk_words": 5, "corpus": "c.jsonl", "out": "i",
    }  # fmt: skip
    done = runner.invoke(probe, ["serve", "i"], catch_exceptions=False)
    assert json.loads(done.output) == {
        "address": "127.0.0.1:0", "index_dir": "i", "max_concurrency": 64, "tls_cert": None,
        "tls_client_ca": None, "tls_key": None, "token_env": None,
    }  # fmt: skip
    assert runner.invoke(probe, ["index", "c.jsonl"]).exit_code == 2  # --out is required
