"""What ``reval --help``, ``reval --version`` and every built-in command's ``--help`` load:
click and the command's own module, never the store, gRPC, numpy, templates, the web
viewer or a plugin. Checked from ``sys.modules`` in a fresh interpreter (deterministic;
the time it takes is a benchmark figure, ``benchmarks/bench_startup.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest

from retrieval_eval.cli.main import COMMANDS, cli

#: Top-level packages (or modules) a help or version screen must not import.
HEAVY = (
    "sqlalchemy",
    "alembic",
    "grpc",
    "grpc_health",
    "grpc_reflection",
    "google.protobuf",
    "numpy",
    "jinja2",
    "stevedore",
    "starlette",
    "uvicorn",
    "tantivy",
    "reval_bm25",
    "qdrant_client",
    "langchain_core",
    "llama_index",
    "retrieval_eval.store",
    "retrieval_eval.web",
    "retrieval_eval.v1",
    "retrieval_eval.retrievers.client",
    "retrieval_eval.retrievers.server",
)


def loaded_by(*args: str, watch: tuple[str, ...] = HEAVY, cwd: Path | None = None) -> list[str]:
    """The ``watch`` modules (default HEAVY) imported by ``reval ARGS`` in a fresh
    interpreter (run in ``cwd``, default this one)."""
    code = (
        "import json, sys\n"
        "from retrieval_eval.cli.main import main\n"
        "try:\n"
        "    main(sys.argv[2:])\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), e.code\n"
        "heavy = json.loads(sys.argv[1])\n"
        "print(json.dumps(sorted(m for m in sys.modules\n"
        "    if any(m == h or m.startswith(h + '.') for h in heavy))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(watch), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def builtin_paths() -> list[tuple[str, ...]]:
    """Every built-in command and subcommand, as argument paths (plugins excluded)."""
    paths: list[tuple[str, ...]] = []

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        paths.append(path)
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None:
                    walk(sub, (*path, name))

    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        if command is not None:
            walk(command, (name,))
    return paths


@pytest.mark.parametrize("args", [("--help",), ("--version",), ("-h",)])
def test_the_top_level_screens_import_nothing_heavy(args):
    assert loaded_by(*args) == []


def test_every_builtin_command_help_imports_nothing_heavy():
    paths = builtin_paths()
    assert ("runs", "compare") in paths and ("sets", "judge") in paths and ("eval",) in paths
    heavy = {" ".join(p): loaded_by(*p, "--help") for p in paths}
    assert {path: mods for path, mods in heavy.items() if mods} == {}


def test_the_probe_sees_what_a_command_imports():
    """The check above could not pass by looking in the wrong place: running a command
    that opens the store shows the store and SQLAlchemy as loaded."""
    mods = loaded_by("runs", "list", "--db", "sqlite://", "--ids")
    assert "sqlalchemy" in mods and "retrieval_eval.store" in mods


def test_plugin_commands_are_listed_from_the_installed_metadata_as_importlib_sees_it():
    """``reval --help`` reads entry points without importlib.metadata; it must find what
    importlib.metadata finds (name and target), in every namespace reval owns."""
    from retrieval_eval.plugins import (
        COMMANDS,
        QUESTION_SETS,
        RETRIEVERS,
        list_plugins,
        scan_plugins,
    )

    for namespace in (COMMANDS, RETRIEVERS, QUESTION_SETS):
        scanned = [(p.name, p.target) for p in scan_plugins(namespace)]
        assert scanned == [(p.name, p.target) for p in list_plugins(namespace)], namespace
    assert ("bm25", "reval_bm25.cli:bm25") in [(p.name, p.target) for p in scan_plugins(COMMANDS)]
    entry = cli.lazy_commands(click.Context(cli))["bm25"]
    assert entry.target == "reval_bm25.cli:bm25" and entry.help.endswith("[plugin reval_ir_bm25]")
    code = "from retrieval_eval.cli.main import main\nmain(['--help'])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert "\n  bm25  " in done.stdout


def test_a_store_at_the_head_revision_opens_without_alembic_or_the_orm(tmp_path):
    """Opening a store whose schema is already current reads its revision with one query
    (no Alembic), and the store's tables are Core tables (no ORM): both would add a large
    share of every store command's start-up. The first open, which migrates, does use
    Alembic, so the probe is seen to look in the right place."""
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    watch = ("alembic", "sqlalchemy.orm", "sqlalchemy", "retrieval_eval.store")
    first = loaded_by("runs", "list", "--db", db, "--ids", watch=watch)
    assert "alembic" in first and "retrieval_eval.store" in first
    again = loaded_by("runs", "list", "--db", db, "--ids", watch=watch)
    assert "sqlalchemy" in again and "retrieval_eval.store" in again
    assert [m for m in again if m.startswith(("alembic", "sqlalchemy.orm"))] == []


def _distribution(site: Path, name: str, entry_points: str) -> None:
    meta = site / f"{name}-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nSummary: {name} here\n\n")
    (meta / "entry_points.txt").write_text(entry_points)


def test_plugins_installed_while_the_process_runs_are_seen_and_loaded(tmp_path, monkeypatch):
    """The entry points are read once per process, again when ``sys.path`` or one of its
    directories changes; stevedore loads from what was read (the same lists)."""
    from retrieval_eval.errors import PluginError, UnknownNameError
    from retrieval_eval.plugins import RETRIEVERS, load_plugin, scan_plugins

    site = tmp_path / "site"
    site.mkdir()
    (site / "reval_probe_a.py").write_text("def factory(argument=None):\n    return 'a'\n")
    _distribution(site, "reval_probe_a", f"[{RETRIEVERS}]\nprobe-a = reval_probe_a:factory\n")
    before = [p.name for p in scan_plugins(RETRIEVERS)]
    assert "probe-a" not in before
    monkeypatch.syspath_prepend(str(site))
    assert [p.name for p in scan_plugins(RETRIEVERS)] == sorted([*before, "probe-a"])
    assert load_plugin(RETRIEVERS, "probe-a")() == "a"
    with pytest.raises(UnknownNameError):
        load_plugin(RETRIEVERS, "probe-b")
    # A second distribution appears in the same directory: the directory changed.
    _distribution(site, "reval_probe_b", f"[{RETRIEVERS}]\nprobe-b = reval_probe_b:nowhere\n")
    os.utime(site, (time.time() + 5, time.time() + 5))  # coarse file system clocks
    assert "probe-b" in [p.name for p in scan_plugins(RETRIEVERS)]
    with pytest.raises(PluginError, match="probe-b"):
        load_plugin(RETRIEVERS, "probe-b")
    assert load_plugin(RETRIEVERS, "bm25") is not None  # the installed plugins still load


def test_an_eval_of_a_jsonl_set_on_a_store_at_head_loads_neither_yaml_nor_alembic(tmp_path):
    """YAML is imported when a YAML set is read, Alembic when the schema must change: a
    second ``reval eval`` of a JSONL set loads neither (the first, a YAML set that creates
    the store, loads both, so the probe is seen to look in the right place)."""
    from reval_bm25.index import build_index

    from retrieval_eval.example_data import __file__ as example_init
    from retrieval_eval.questions.loading import load_question_sets

    example = Path(example_init).parent
    index = tmp_path / "index"
    build_index(example / "corpus.jsonl", index, chunk_words=150, chunk_overlap=30)
    jsonl = tmp_path / "questions.jsonl"
    (asked,) = load_question_sets(str(example / "questions.yaml"))
    lines = [{"reval_question_set": 1, "name": asked.name}]
    lines += [{"id": q.id, "question": q.question, "form": q.form.value,
               "expected_document_ids": list(q.expected_document_ids)}
              for q in asked.questions]  # fmt: skip
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in lines))
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    watch = ("yaml", "alembic", "retrieval_eval.store", "reval_bm25")
    common = ["--retriever", f"bm25:{index}", "--db", db, "--format", "json"]
    first = loaded_by("eval", "--set", str(example / "questions.yaml"), *common, watch=watch)
    assert {"yaml", "alembic", "retrieval_eval.store", "reval_bm25"} <= set(first)
    again = loaded_by("eval", "--set", str(jsonl), *common, watch=watch)
    assert "retrieval_eval.store" in again and "reval_bm25" in again
    assert [m for m in again if m.startswith(("yaml", "alembic"))] == []


def test_listing_an_empty_store_loads_no_report_and_no_judge(tmp_path):
    """``runs list`` says there is nothing to list without the table (rich), the report
    records or the regression judge; the file width the CLI uses is the reports'."""
    from retrieval_eval.cli.render import FILE_WIDTH
    from retrieval_eval.report.run.render import FILE_WIDTH as REPORT_WIDTH

    assert FILE_WIDTH == REPORT_WIDTH
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    watch = ("rich", "retrieval_eval.report.model", "retrieval_eval.report.runs_list",
             "retrieval_eval.report.run", "retrieval_eval.regression.verdict",
             "retrieval_eval.regression.class_checks", "retrieval_eval.store")  # fmt: skip
    loaded_by("runs", "list", "--db", db, watch=watch)  # creates the store
    mods = loaded_by("runs", "list", "--db", db, watch=watch)
    assert "retrieval_eval.store" in mods
    assert [m for m in mods if not m.startswith("retrieval_eval.store")] == []


#: What ``reval eval`` of a set file against ``bm25:INDEX`` does not need: the BM25
#: indexer and the corpus reader (searching needs neither), the set-provider registry (a
#: file is no registered name), the reval.toml reader and TOML (there is no reval.toml),
#: and the listings' ``RunSummary``.
NOT_FOR_A_PLUGIN_EVAL = (
    "reval_bm25.index",
    "retrieval_eval.corpus.reader",
    "retrieval_eval.questions.registry",
    "retrieval_eval.questions.validation",
    "retrieval_eval.retrievers.config",
    "tomllib",
    "retrieval_eval.store.summaries",
)


def test_an_eval_of_a_set_file_with_bm25_loads_only_what_it_uses(tmp_path):
    """Each of these is imported when it is used: with a reval.toml present its reader is
    loaded, and searching loads the BM25 retriever and the stored-run records, so the
    probe is seen to look in the right place."""
    from reval_bm25.index import build_index

    from retrieval_eval.example_data import __file__ as example_init

    example = Path(example_init).parent
    index = tmp_path / "index"
    build_index(example / "corpus.jsonl", index, chunk_words=150, chunk_overlap=30)
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    args = ["eval", "--set", str(example / "questions.yaml"), "--retriever", f"bm25:{index}",
            "--db", db, "--format", "json"]  # fmt: skip
    watch = (*NOT_FOR_A_PLUGIN_EVAL, "reval_bm25.retriever", "retrieval_eval.store.stored_run")
    plain, configured = tmp_path / "plain", tmp_path / "configured"
    plain.mkdir()
    configured.mkdir()
    (configured / "reval.toml").write_text('[retrievers.remote]\naddress = "grpc://127.0.0.1:1"\n')
    loaded_by(*args, watch=watch, cwd=plain)  # creates the store
    mods = loaded_by(*args, watch=watch, cwd=plain)
    assert {"reval_bm25.retriever", "retrieval_eval.store.stored_run"} <= set(mods)
    assert [m for m in mods if m.startswith(NOT_FOR_A_PLUGIN_EVAL)] == []
    with_config = loaded_by(*args, watch=watch, cwd=configured)
    assert {"retrieval_eval.retrievers.config", "tomllib"} <= set(with_config)
