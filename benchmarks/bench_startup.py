"""Start-up of ``reval``: what a person typing it, and a CI step running it, wait for.

Two ratios, each against a baseline measured in the same run (median wall time of fresh
processes over ``--repeat`` rounds; each round runs every command once, in an order that
rotates from round to round, so load from neighbours falls on both sides alike):

1. ``reval --help`` against ``python -c "import click"`` (the floor of any click CLI);
   goal: within 2x.
2. ``reval eval`` of the shipped 23-question example with the BM25 plugin in process
   against the floor of its imports: a process that only imports every module ``reval
   eval`` loads that is not reval's own, submodules included (the standard library's and
   SQLAlchemy's with its SQLite dialect, tantivy, stevedore, ...); goal: within 1.5x.
   The floor of the top-level packages alone (the definition before: it left third-party
   submodules such as ``sqlalchemy.dialects.sqlite`` on reval's side) is printed beside
   it, and so is what reval adds to the floor, which does not move when reval stops
   importing a module it does not need (the ratio does).
   ``python -X importtime`` attribution of that eval (by top-level package, and reval's
   own heaviest modules) is printed after the figures. ``reval --version`` and ``reval
   runs list`` on an empty store are printed beside them.

Every process keeps its bytecode under a temporary PYTHONPYCACHEPREFIX (the first runs
write it), as an installed reval has it. ``--instructions`` counts instructions instead
(one run of each process under valgrind's callgrind): the same ratios, which a loaded
machine does not disturb.

    python benchmarks/bench_startup.py
    python benchmarks/bench_startup.py --repeat 20
    python benchmarks/bench_startup.py --instructions
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import retrieval_eval.example_data as example_data

PY = sys.executable
REVAL = str(Path(PY).parent / "reval")
DATA = Path(example_data.__file__).parent
OWN = ("retrieval_eval", "reval_bm25")

PROBE = """
import json, sys
from retrieval_eval.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(list(sys.modules)), file=sys.stderr)
"""


def environment(home: Path) -> dict[str, str]:
    """A clean reval environment whose processes keep their bytecode (in ``home``), as an
    installed reval does: without it an editable checkout under PYTHONDONTWRITEBYTECODE
    compiles every reval module from source in every process, while the floor's packages
    came with bytecode from pip."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVAL_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    env["REVAL_HOME"] = str(home)
    env["COLUMNS"] = "100"
    return env


def alternating_ms(
    commands: dict[str, list[str]], env: dict[str, str], repeat: int
) -> dict[str, float]:
    """Median wall time of each command, in ms: ``repeat`` rounds, each running every
    command once in an order that rotates from round to round, so that a neighbour's load
    falls on all of them alike instead of on whichever ran in its block."""
    names = list(commands)
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(repeat):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            started = time.perf_counter()
            subprocess.run(commands[name], env=env, check=True, capture_output=True)
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


def million_instructions(args: list[str], env: dict[str, str]) -> float:
    """Instructions one run of ``args`` executes (valgrind's callgrind), in millions."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           *args], env=env, capture_output=True, text=True, check=True)  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    assert found is not None, done.stderr
    return int(found.group(1)) / 1e6


def not_ours(names: list[str]) -> list[str]:
    """Modules that are not reval's own, in the order they were loaded (standard library
    included: an import reval makes costs the same whoever makes it)."""
    return [n for n in names if n.split(".")[0] not in OWN and n != "__main__"]


def top_level(names: list[str]) -> list[str]:
    """The top-level packages of ``names``, in order of first appearance."""
    return list(dict.fromkeys(n.split(".")[0] for n in names))


def importtime(args: list[str], env: dict[str, str]) -> list[tuple[str, int, int]]:
    """(module, self µs, cumulative µs) for every import of ``reval ARGS``."""
    code = "from retrieval_eval.cli.main import main\ntry:\n    main(__import__('sys').argv[1:])\n"
    code += "except SystemExit:\n    pass\n"
    done = subprocess.run([PY, "-X", "importtime", "-c", code, *args], env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, name = line[len("import time:") :].split("|")
        rows.append((name.strip(), int(self_us), int(cumulative_us)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions (valgrind) instead of timing")  # fmt: skip
    options = parser.parse_args()
    repeat = options.repeat
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = environment(home)
        index = home / "index"
        subprocess.run([REVAL, "bm25", "index", str(DATA / "corpus.jsonl"), "--out", str(index),
                        "--chunk-words", "150", "--chunk-overlap", "30"],
                       env=env, check=True, capture_output=True)  # fmt: skip
        eval_args = ["eval", "--set", str(DATA / "questions.yaml"), "--retriever",
                     f"bm25:{index}", "--format", "json"]  # fmt: skip
        subprocess.run([REVAL, *eval_args], env=env, check=True, capture_output=True)  # store made

        if options.instructions:
            count(env, eval_args, home, load)
            return
        empty = ["runs", "list", "--db", f"sqlite:///{home / 'empty.sqlite'}"]
        subprocess.run([REVAL, *empty], env=env, check=True, capture_output=True)  # created
        modules, floor_code, top_code = floor(eval_args, env)
        ms = alternating_ms(
            {
                "click": [PY, "-c", "import click"],
                "help": [REVAL, "--help"],
                "version": [REVAL, "--version"],
                "group": [REVAL, "runs", "--help"],
                "list": [REVAL, *empty],
                "floor": [PY, "-c", floor_code],
                "top": [PY, "-c", top_code],
                "eval": [REVAL, *eval_args],
            },
            env,
            repeat,
        )
        click_ms, help_ms, version_ms, group_ms = (
            ms["click"],
            ms["help"],
            ms["version"],
            ms["group"],
        )
        list_ms, floor_ms, top_ms, eval_ms = ms["list"], ms["floor"], ms["top"], ms["eval"]
        rows = importtime(eval_args, env)

    print(f"load average {load:.2f}; medians of {repeat} rounds of fresh processes, the "
          "commands alternated round by round")  # fmt: skip
    print(f"python -c 'import click'     {click_ms:8.1f} ms")
    print(f"reval --help                 {help_ms:8.1f} ms   {help_ms / click_ms:.2f}x click "
          "(goal <= 2x)")  # fmt: skip
    print(f"reval --version              {version_ms:8.1f} ms   {version_ms / click_ms:.2f}x click")
    print(f"reval runs --help            {group_ms:8.1f} ms   {group_ms / click_ms:.2f}x click")
    print(f"reval runs list (empty store){list_ms:8.1f} ms   {list_ms / click_ms:.2f}x click")
    packages = top_level(modules)
    outside = [p for p in packages if p not in sys.stdlib_module_names and not p.startswith("_")]
    print(f"import floor of reval eval   {floor_ms:8.1f} ms   ({len(modules)} modules of "
          f"{len(packages)} top-level packages; beyond the standard library: "
          f"{', '.join(outside)})")  # fmt: skip
    print(f"  top-level packages only    {top_ms:8.1f} ms   (the floor's earlier definition)")
    print(f"reval eval (23 questions,    {eval_ms:8.1f} ms   {eval_ms / floor_ms:.2f}x the floor "
          f"(goal <= 1.5x), {eval_ms / top_ms:.2f}x the top-level packages'\n"
          f"  BM25 in process)             reval adds {eval_ms - floor_ms:.0f} ms")  # fmt: skip

    by_package: dict[str, int] = defaultdict(int)
    for name, self_us, _ in rows:
        by_package[name.split(".")[0]] += self_us
    total = sum(by_package.values())
    print(f"\npython -X importtime of reval eval: {total / 1000:.1f} ms of imports, by package "
          "(self time):")  # fmt: skip
    for name, us in sorted(by_package.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {name:28s} {us / 1000:7.1f} ms")
    own = [(n, s) for n, s, _ in rows if n.split(".")[0] in OWN]
    print("reval's own heaviest modules (self time):")
    for name, us in sorted(own, key=lambda r: -r[1])[:8]:
        print(f"  {name:50s} {us / 1000:6.1f} ms")


def floor(eval_args: list[str], env: dict[str, str]) -> tuple[list[str], str, str]:
    """The modules ``reval eval`` loads that are not reval's own; a program importing
    every one of them (the floor), and one importing only their top-level packages."""
    probe = subprocess.run([PY, "-c", PROBE, *eval_args], env=env, capture_output=True,
                           text=True, check=True)  # fmt: skip
    modules = not_ours(json.loads(probe.stderr.strip().splitlines()[-1]))
    return modules, importer(modules), importer(top_level(modules))


def importer(names: list[str]) -> str:
    """A program importing ``names`` in order (one that fails to import alone is skipped)."""
    return (
        f"import importlib\nfor name in {names!r}:\n    try:\n"
        "        importlib.import_module(name)\n    except Exception:\n        pass\n"
    )


def count(env: dict[str, str], eval_args: list[str], home: Path, load: float) -> None:
    """The same ratios in instructions, one process each (the bytecode is already cached)."""
    empty = ["runs", "list", "--db", f"sqlite:///{home / 'empty.sqlite'}"]
    subprocess.run([REVAL, *empty], env=env, check=True, capture_output=True)  # created
    _, floor_code, top_code = floor(eval_args, env)
    click = million_instructions([PY, "-c", "import click"], env)
    rows = [
        ("reval --help", million_instructions([REVAL, "--help"], env), click, "click"),
        ("reval runs list (empty store)", million_instructions([REVAL, *empty], env), click,
         "click"),
    ]  # fmt: skip
    floor_m = million_instructions([PY, "-c", floor_code], env)
    top_m = million_instructions([PY, "-c", top_code], env)
    eval_m = million_instructions([REVAL, *eval_args], env)
    rows.append(("reval eval (23 questions, BM25)", eval_m, floor_m, "the floor"))
    print(f"load average {load:.2f}; millions of instructions (valgrind), one process each")
    print(f"python -c 'import click'         {click:8.0f}")
    print(f"import floor of reval eval       {floor_m:8.0f}")
    print(f"  top-level packages only        {top_m:8.0f}   (the floor's earlier definition)")
    for name, value, base, base_name in rows:
        print(f"{name:32s} {value:8.0f}   {value / base:.2f}x {base_name}")
    print(f"  reval adds {eval_m - floor_m:.0f} to the floor; {eval_m / top_m:.2f}x the "
          "top-level packages'")  # fmt: skip


if __name__ == "__main__":
    main()
