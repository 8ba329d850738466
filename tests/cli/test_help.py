"""--help is complete and consistent: every option says what it does, --timeout and the
regression thresholds are one definition everywhere, and mistyped commands suggest the
right one."""

from __future__ import annotations

import click
from support.cli import run_reval

from retrieval_eval.cli.main import cli


def commands() -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []

    def walk(command: click.Command, path: str) -> None:
        found.append((path, command))
        if isinstance(command, click.Group):
            for name in command.list_commands(click.Context(command)):
                sub = command.get_command(click.Context(command), name)
                if sub is not None:
                    walk(sub, f"{path} {name}")

    walk(cli, "reval")
    return found


def test_every_option_has_help_text():
    missing = [
        f"{path} {'/'.join(p.opts)}"
        for path, command in commands()
        for p in command.params
        if isinstance(p, click.Option) and not p.help and p.name not in ("help", "version")
    ]
    assert not missing


def test_timeout_is_one_option_with_one_default_and_metavar():
    timeouts = [
        (path, p)
        for path, command in commands()
        for p in command.params
        if isinstance(p, click.Option) and "--timeout" in p.opts
    ]
    assert {path for path, _ in timeouts} >= {"reval eval", "reval check-retriever", "reval diff"}
    assert {(p.metavar, p.default, p.help) for _, p in timeouts} == {
        ("SECONDS", None, timeouts[0][1].help)
    }
    assert "else 10]" in (timeouts[0][1].help or "")


def test_the_regression_thresholds_are_one_definition_shared_by_every_command():
    names = ("--max-top1-drop", "--max-top3-drop", "--max-p95-latency-increase")
    by_name: dict[str, set[tuple[object, ...]]] = {name: set() for name in names}
    paths: dict[str, set[str]] = {name: set() for name in names}
    # ``sets lint`` plans a set's size for a threshold: the same name, another meaning.
    for path, command in commands():
        if path == "reval sets lint":
            continue
        for p in command.params:
            for name in names:
                if isinstance(p, click.Option) and name in p.opts:
                    by_name[name].add((p.name, p.metavar, p.default, p.help, repr(p.type)))
                    paths[name].add(path)
    for name in names:
        assert paths[name] >= {"reval eval", "reval runs compare"}, name
        assert len(by_name[name]) == 1, (name, by_name[name])
    (drop,) = by_name["--max-top1-drop"]
    assert drop[1] == "RATE" and "strictly greater" in str(drop[3])


def test_every_command_that_opens_a_retriever_by_name_takes_one_config_option():
    """``--config`` (the reval.toml naming retrievers) is one definition wherever a
    retriever can be named: --retriever, a check or serve target, a fusion to tune."""
    opens = {"reval eval", "reval diff", "reval sets draft", "reval check-retriever",
             "reval serve", "reval retrievers list", "reval fusion tune"}  # fmt: skip
    configs = {
        path: (p.name, repr(p.type.to_info_dict()), p.help)
        for path, command in commands()
        for p in command.params
        if isinstance(p, click.Option) and "--config" in p.opts
    }
    assert set(configs) >= opens, sorted(opens - set(configs))
    # ``runs list/history --retriever`` filter stored runs: they open nothing.
    with_retriever = {
        path
        for path, command in commands()
        for p in command.params
        if isinstance(p, click.Option) and "--retriever" in p.opts
        if not path.startswith("reval runs ")
    }
    assert with_retriever <= set(configs), sorted(with_retriever - set(configs))
    assert len(set(configs.values())) == 1, configs


def test_the_listed_help_of_a_lazy_command_is_its_own():
    """``--help`` lists commands from their written one-line help without importing them;
    that line must be what the command itself says."""
    from retrieval_eval.cli.lazy import LazyGroup

    checked = []
    for path, command in commands():
        if isinstance(command, LazyGroup):
            for name, entry in command.lazy.items():
                sub = command.get_command(click.Context(command), name)
                assert sub is not None, f"{path} {name}"
                assert entry.help == sub.get_short_help_str(limit=500), f"{path} {name}"
                checked.append(f"{path} {name}")
    assert {"reval eval", "reval runs history", "reval sets judge"} <= set(checked)


def test_top_level_typos_suggest_the_command():
    result = run_reval("evl")
    assert result.returncode == 2 and "Did you mean 'eval'?" in result.stderr
    result = run_reval("runs", "histroy")
    assert result.returncode == 2 and "Did you mean 'history'?" in result.stderr


def test_eval_documents_its_retriever_arguments():
    result = run_reval("eval", "--help")
    assert "[RETRIEVER]..." in result.stdout and "RETRIEVER arguments" in result.stdout
