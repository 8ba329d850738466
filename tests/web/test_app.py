"""The viewer's pages over a real store: filters, links by run id, the JSON of a run,
errors as status codes, and nothing that points outside the viewer."""

from __future__ import annotations

import re

import pytest

from retrieval_eval.regression.stored import stored_verdict
from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.run.json_format import runs_to_document

EXTERNAL = re.compile(r"""(?:src|href|action)\s*=\s*["'](?!/|#|data:)""", re.IGNORECASE)


def listed(client, query: str = "") -> list[str]:
    response = client.get("/" + query)
    assert response.status_code == 200
    return re.findall(r'<tr data-run-id="([^"]+)"', response.text)


def test_runs_list_filters_by_set_retriever_label_state_and_verdict(client, filled):
    assert listed(client) == filled[::-1]  # newest first
    assert listed(client, "?set=faq&retriever=bm25") == filled[::-1]
    assert listed(client, "?set=other") == []
    assert listed(client, "?label=branch%3Dretune") == [filled[2]]
    assert listed(client, "?state=incomplete") == [filled[3]]
    assert listed(client, "?verdict=regression") == [filled[2]]
    assert listed(client, "?verdict=no-baseline") == [filled[0]]


def test_a_run_saved_without_a_verdict_is_listed_as_unjudged(client, store, filled):
    from support.factory import make_run

    unjudged = store.save(make_run("1111111111", started=9))  # a script: no check
    page = client.get("/").text
    rows = dict(re.findall(r'<tr data-run-id="([^"]+)"(.*?)</tr>', page, re.DOTALL))
    assert ">unjudged</span>" in rows[unjudged]
    assert all(">unjudged</span>" not in rows[run_id] for run_id in filled)


def test_run_page_links_and_json_match_the_store(client, store, filled):
    page = client.get(f"/runs/{filled[2]}")
    assert page.status_code == 200 and not EXTERNAL.search(page.text)
    assert 'data-verdict="regression"' in page.text
    assert f'href="/runs/{filled[1]}"' in page.text  # the baseline, linked by id
    assert "/history?set=faq&amp;retriever=bm25" in page.text
    stored = store.get_stored(filled[2])
    expected = runs_to_document([RunReport(stored.run, stored_verdict(stored))])
    got = client.get(f"/runs/{filled[2][:6]}.json").json()  # a unique prefix works too
    assert got["runs"] == expected["runs"]


def test_history_and_comparison_pages(client, filled):
    history = client.get("/history?set=faq&retriever=bm25")
    assert history.status_code == 200
    assert history.text.count('<tr data-run-id="') == len(filled)
    compare = client.get("/compare?" + "&".join(f"run={i}" for i in filled[:3]))
    assert compare.status_code == 200 and not EXTERNAL.search(compare.text)
    assert re.findall(r'<tr data-run-id="([^"]+)"', compare.text) == filled[:3]


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/runs/nosuchrun", 404, "unknown run"),
        ("/?state=sleeping", 400, "unknown state"),
        ("/?label=novalue", 400, "not KEY=VALUE"),
        ("/history?set=faq", 400, "history needs"),
        ("/history?set=nosuchset&retriever=bm25", 404, "no runs stored"),
        ("/compare?run=x", 400, "pick between 2"),
    ],
)
def test_bad_requests_get_a_status_and_a_message(client, path, status, message):
    response = client.get(path)
    assert response.status_code == status and message in response.text


def test_assets_are_served_by_the_viewer_itself(client):
    js = client.get("/assets/chart.umd.min.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert client.get("/assets/reval.css").headers["content-type"].startswith("text/css")
    assert client.get("/assets/..%2Fpage.py").status_code == 404


def test_judging_saves_refuse_other_sites(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from starlette.testclient import TestClient

    from retrieval_eval.store.store import RunStore
    from retrieval_eval.web.app import create_app
    from retrieval_eval.web.judging import JudgingDesk

    draft = tmp_path / "draft.yaml"
    draft.write_text(
        "questions:\n  - id: q1\n    question: Where?\n    expected_document_ids: []\n"
        "    labelling:\n      state: unjudged\n      candidates: [{document_id: overview}]\n"
    )
    corpus = tmp_path.parent / "corpus.jsonl"
    corpus.write_text('{"_id": "overview", "title": "Overview", "text": "Here."}\n')
    desk = JudgingDesk("ana")
    desk.add(draft, corpus)
    with RunStore.open(f"sqlite:///{tmp_path / 'runs.sqlite'}") as store:
        client = TestClient(create_app(store, desk), base_url="http://localhost")
        body = '{"judge": "ana", "relevant": ["overview"], "complete": true}'
        url = "/judge/draft/questions/q1"
        plain = client.post(url, content=body, headers={"content-type": "text/plain"})
        assert plain.status_code == 403
        other = client.post(
            url,
            content=body,
            headers={"content-type": "application/json", "origin": "http://evil.example"},
        )
        assert other.status_code == 403 and "refused" in other.json()["error"]
        assert "relevant: null" in draft.read_text() or "relevant:" not in draft.read_text()
        ok = client.post(url, content=body, headers={"content-type": "application/json"})
        assert ok.status_code == 200 and ok.json()["state"] == "judged"
        page = client.get("/judge/draft")
        assert page.status_code == 200 and 'id="judge-data"' in page.text
        assert client.get("/judge/nope").status_code == 404


def test_the_judging_page_names_the_set_file_as_started(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Started in the draft's folder, the page says ``judging sub/draft.yaml``; a file outside
    the working directory keeps its absolute path (there is no shorter true name)."""
    from retrieval_eval.web.judging import JudgingDesk

    (tmp_path / "sub").mkdir()
    draft = tmp_path / "sub" / "draft.yaml"
    draft.write_text(
        "questions:\n  - id: q1\n    question: Where?\n    expected_document_ids: []\n"
    )
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "overview", "title": "Overview", "text": "Here."}\n')
    desk = JudgingDesk("ana")
    key = desk.add(draft, corpus)
    monkeypatch.chdir(tmp_path)
    assert desk.page_data(key)["file"] == "sub/draft.yaml"
    monkeypatch.chdir(tmp_path / "sub")
    assert desk.page_data(key)["file"] == "draft.yaml"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert desk.page_data(key)["file"] == str(draft.resolve())


def test_history_page_tells_label_versions_apart_and_shows_one(client, store, filled):
    from support.factory import make_run, question_set

    from retrieval_eval.comparison.label_versions import version_name
    from retrieval_eval.records.outcome import Form

    source = store.get(filled[0])
    grown = question_set(10, forms=[Form.MATCH, Form.GAP] * 5, classes=["near-duplicate"] * 10)
    rescored = store.save(make_run("1111111300", qs=grown, started=9),
                          rescored_from=(filled[0], source.set_fingerprint))  # fmt: skip
    old, new = version_name(source.set_fingerprint), version_name(grown.fingerprint)
    page = client.get("/history?set=faq&retriever=bm25").text
    assert page.count('<tr data-run-id="') == len(filled) + 1
    side = re.search(f'<tr data-source-run="{filled[0]}">(.*?)</tr>', page, re.DOTALL)
    assert side is not None
    cells = dict(re.findall(r'data-label-version="([^"]+)">(.*?)</td>', side.group(1), re.DOTALL))
    assert set(cells) == {old, new} and rescored in cells[new]
    assert f"label_version={new}" in page  # a link to this version alone
    one = client.get(f"/history?set=faq&retriever=bm25&label_version={new}").text
    assert re.findall(r'<tr data-run-id="([^"]+)"', one) == [rescored]
    assert 'data-note="label-version-shown"' in one and "data-source-run" not in one
    assert f"label_version={new}&amp;limit=50" in one  # the page's links keep the version
    bad = client.get("/history?set=faq&retriever=bm25&label_version=zz")
    assert bad.status_code == 400 and "no run here was scored on those labels" in bad.text
