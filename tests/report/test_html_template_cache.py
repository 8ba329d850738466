"""Compiled templates are kept between processes, so a viewer or report starting again
does not compile them again (Jinja's cache checks each entry against its template's
source)."""

from __future__ import annotations

import os
import subprocess
import sys

COMPILE_ALL = """
import sys
from retrieval_eval.report.html import page

env = page.environment()
compiled = []
real_compile = env.compile
def counting(source, name=None, *args, **kwargs):
    compiled.append(name)
    return real_compile(source, name, *args, **kwargs)
env.compile = counting
for name in env.list_templates(extensions=["j2"]):
    env.get_template(name)
print(len(compiled), len(env.list_templates(extensions=["j2"])))
"""


def compile_all(tmp_dir: str) -> tuple[int, int]:
    env = {**os.environ, "TMPDIR": tmp_dir}
    done = subprocess.run([sys.executable, "-c", COMPILE_ALL], env=env, capture_output=True,
                          text=True, check=True, timeout=120)  # fmt: skip
    compiled, templates = map(int, done.stdout.split())
    return compiled, templates


def test_a_second_process_loads_compiled_templates_instead_of_compiling(tmp_path):
    compiled, templates = compile_all(str(tmp_path))
    assert compiled == templates > 5
    (cache,) = tmp_path.iterdir()
    assert len(list(cache.iterdir())) == templates
    assert compile_all(str(tmp_path)) == (0, templates)
