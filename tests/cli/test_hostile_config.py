"""Configuration that used to end in a traceback with exit 1 ("regression"): a token
from the environment with a line break, a reval.toml in UTF-16, a reval.toml with
deeply nested arrays. Each is one line naming the culprit, exit 2, from the installed
``reval`` executable, before anything is measured."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.cli import GOOD, REVAL

from retrieval_eval.example_data import corpus_path


def reval(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REVAL), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CI": "1", "NO_COLOR": "1", **(env or {})},
    )


def one_line_exit_2(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reval: error: "), done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize("ending", ["\n", "\r", "\r\n"])
def test_a_token_with_a_line_break_is_named(ending, sets, serve_table, db, tmp_path):
    target = serve_table(GOOD)
    secret = "s3cret-token"
    done = reval("eval", "--set", sets["faq"], "--retriever", target, "--db", db,
                 "--token-env", "TOK", env={"TOK": secret + ending})  # fmt: skip
    one_line_exit_2(done, "--token-env", "TOK", "control character")
    assert secret not in done.stdout + done.stderr
    toml = tmp_path / "reval.toml"
    toml.write_text(f'[retrievers.prod]\naddress = "{target}"\ntoken_env = "TOK"\n')
    done = reval("eval", "--set", sets["faq"], "--retriever", "prod", "--db", db,
                 "--config", toml, env={"TOK": secret + ending})  # fmt: skip
    one_line_exit_2(done, "[retrievers.prod]", "token_env", "TOK")
    assert secret not in done.stdout + done.stderr


def test_a_utf16_reval_toml_is_named(sets, db, tmp_path):
    toml = tmp_path / "reval.toml"
    toml.write_text('[retrievers.prod]\naddress = "grpc://127.0.0.1:1"\n', encoding="utf-16")
    done = reval("eval", "--set", sets["faq"], "--retriever", "prod", "--db", db, "--config", toml)
    one_line_exit_2(done, str(toml), "UTF-16", "UTF-8")


def test_deeply_nested_arrays_in_reval_toml_are_named(sets, db, tmp_path):
    toml = tmp_path / "reval.toml"
    toml.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    done = reval("eval", "--set", sets["faq"], "--retriever", "prod", "--db", db, "--config", toml)
    one_line_exit_2(done, str(toml), "nested too deeply")


BAD_ENTRY = """\
[retrievers.good]
address = "{address}"

[retrievers.typo]
adress = "grpc://127.0.0.1:1"

[retrievers.blend]
fuse = ["good", "typo"]
"""


def test_a_bad_entry_stops_only_the_commands_that_use_it(sets, serve_table, db, tmp_path):
    target = serve_table(GOOD)
    config = tmp_path / "reval.toml"
    config.write_text(BAD_ENTRY.format(address=target), encoding="utf-8")
    where = f"{config} [retrievers.typo]: unknown key 'adress'; did you mean 'address'?"
    # another entry, and a plugin spec (read as a name first): measured, one warning line
    index = tmp_path / "index"
    assert reval("bm25", "index", corpus_path(), "--out", index).returncode == 0
    for spec in ("good", f"bm25:{index}"):
        done = reval("eval", "--set", sets["faq"], "--retriever", spec, "--db", db,
                     "--config", config, "--format", "json")  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stderr.strip().splitlines() == [
            f"warning: {where} (left out: this command does not use it)"
        ]
    address = reval("eval", "--set", sets["faq"], "--retriever", target, "--db", db,
                    "--config", config, "--format", "json")  # fmt: skip
    assert address.returncode == 0 and address.stderr == ""  # an address reads no reval.toml
    listed = reval("retrievers", "list", "--config", config)
    names = [line.split()[0] for line in listed.stdout.splitlines()[1:]]
    assert listed.returncode == 0 and "good" in names and "typo" not in names
    assert where in listed.stderr
    # the bad entry itself, or a fusion of it: one line, exit 2, nothing measured
    one_line_exit_2(reval("eval", "--set", sets["faq"], "--retriever", "typo", "--db", db,
                          "--config", config), where)  # fmt: skip
    one_line_exit_2(reval("eval", "--set", sets["faq"], "--retriever", "blend", "--db", db,
                          "--config", config), where)  # fmt: skip
