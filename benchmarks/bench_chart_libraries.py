"""Why Chart.js: the run view's three charts drawn by Chart.js (reval's report), by
Vega-Lite (vega + vega-lite + vega-embed) and by Plotly (plotly.js-dist-min), each
inlined into one offline file with the same 1,000-question table; file size and time to
draw in Debian's chromium (median of 5 loads, from navigation start to charts drawn).

Needs npm and the npm registry to fetch the two alternatives (into a temporary
directory), and the test extra (Playwright). Not part of the test suite.

    python benchmarks/bench_chart_libraries.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.run.html_view import render_html, run_view

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ui import build_run

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "vega@6": "package/build/vega.min.js",
    "vega-lite@6": "package/build/vega-lite.min.js",
    "vega-embed@7": "package/build/vega-embed.min.js",
    "plotly.js-dist-min@3": "package/plotly.min.js",
}
DONE = "window.drawnAt=performance.now();document.documentElement.setAttribute('data-ready','1')"


def fetch(folder: Path) -> dict[str, str]:
    scripts = {}
    for spec, member in PACKAGES.items():
        name = subprocess.run(["npm", "pack", spec, "--silent"], cwd=folder, check=True,
                              capture_output=True, text=True).stdout.split()[-1]  # fmt: skip
        with tarfile.open(folder / name) as archive:
            data = archive.extractfile(member)
            assert data is not None
            scripts[spec.split("@")[0]] = data.read().decode()
    return scripts


def bars(spec: dict) -> list[dict]:
    return [
        {"group": c, "metric": s["label"], "rate": v, "low": lo, "high": hi}
        for s in spec["series"]
        for c, v, lo, hi in zip(spec["categories"], s["values"], s["low"], s["high"], strict=True)
    ]


def pages(scripts: dict[str, str], report: RunReport) -> dict[str, str]:
    ours = render_html([report]).replace("    drawAll();\n", "    drawAll(); " + DONE + ";\n", 1)
    ours = ours.replace('document.documentElement.setAttribute("data-ready", "1");', "")
    view = run_view(report)
    table = ours[ours.index("<h2>Questions</h2>") : ours.index("</section>")]
    lat = view.latency
    assert lat is not None
    ecdf = [{"ms": x, "share": (i + 1) / len(lat["values"])} for i, x in enumerate(lat["values"])]
    vl = [
        {"width": 300, "height": 200, "data": {"values": bars(spec)},
         "encoding": {"x": {"field": "group", "type": "nominal"}, "xOffset": {"field": "metric"}},
         "layer": [{"mark": "bar", "encoding": {
             "y": {"field": "rate", "type": "quantitative", "scale": {"domain": [0, 1]}},
             "color": {"field": "metric"}, "tooltip": [{"field": "rate"}, {"field": "low"}]}},
             {"mark": "rule", "encoding": {"y": {"field": "low", "type": "quantitative"},
                                           "y2": {"field": "high"}}}]}
        for spec in (view.by_form, view.by_hard_class)
    ] + [{"width": 300, "height": 200, "layer": [
        {"data": {"values": ecdf}, "mark": {"type": "line", "interpolate": "step-after"},
         "encoding": {"x": {"field": "ms", "type": "quantitative"},
                      "y": {"field": "share", "type": "quantitative"}}},
        {"data": {"values": [{"p": k, "ms": x} for k, x in lat["marks"].items()]},
         "mark": {"type": "rule", "strokeDash": [6, 4]},
         "encoding": {"x": {"field": "ms", "type": "quantitative"},
                      "color": {"field": "p"}}}]}]  # fmt: skip
    divs = "<div id=c0></div><div id=c1></div><div id=c2></div>"
    vega_js = scripts["vega"] + scripts["vega-lite"] + scripts["vega-embed"]
    vega = (f"<!DOCTYPE html><meta charset=utf-8><body>{divs}{table}<script>{vega_js}</script>"
            f"<script>Promise.all({json.dumps(vl)}.map((s,i)=>vegaEmbed('#c'+i,s,"
            f"{{actions:false,renderer:'canvas'}}))).then(()=>{{{DONE}}});</script>")  # fmt: skip
    traces = [
        [{"type": "bar", "name": s["label"], "x": spec["categories"], "y": s["values"],
          "error_y": {"type": "data", "symmetric": False,
                      "array": [h - v for h, v in zip(s["high"], s["values"], strict=True)],
                      "arrayminus": [v - lo for lo, v in zip(s["low"], s["values"], strict=True)]}}
         for s in spec["series"]]
        for spec in (view.by_form, view.by_hard_class)
    ] + [[{"type": "scatter", "mode": "lines", "line": {"shape": "hv"},
           "x": [p["ms"] for p in ecdf], "y": [p["share"] for p in ecdf]}]]  # fmt: skip
    plotly = (f"<!DOCTYPE html><meta charset=utf-8><body>{divs}{table}"
              f"<script>{scripts['plotly.js-dist-min']}</script><script>Promise.all("
              f"{json.dumps(traces)}.map((d,i)=>Plotly.newPlot('c'+i,d,{{width:400,height:280}})))"
              f".then(()=>{{{DONE}}});</script>")  # fmt: skip
    return {"Chart.js (reval)": ours, "Vega-Lite": vega, "Plotly": plotly}


def main() -> None:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "tools"))
    from screenshots import launch

    report = RunReport(build_run(1000))
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        folder = Path(tmp)
        built = pages(fetch(folder), report)
        browser = launch(p)
        print(f"{'library':<18}{'file KiB':>10}{'drawn ms':>10}")
        for name, html in built.items():
            path = folder / f"{len(html)}.html"
            path.write_text(html, encoding="utf-8")
            times = []
            for _ in range(5):
                page = browser.new_page()
                page.goto(path.as_uri())
                page.wait_for_selector("html[data-ready]", timeout=60_000)
                times.append(page.evaluate("window.drawnAt"))
                page.close()
            size = len(html.encode()) / 1024
            print(f"{name:<18}{size:>10.0f}{statistics.median(times):>10.0f}")
        browser.close()


if __name__ == "__main__":
    main()
