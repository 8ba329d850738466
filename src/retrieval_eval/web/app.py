"""The viewer's routes: thin handlers that read the store and render the shared views."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from retrieval_eval.errors import InputError, RevalError, StoreError, UnknownNameError
from retrieval_eval.report.html.page import SCRIPTS, STYLES, asset, environment
from retrieval_eval.store.store import RunStore
from retrieval_eval.web import pages
from retrieval_eval.web.hosts import HostGuard, HostRule
from retrieval_eval.web.judging import JudgingDesk

ASSETS_URL = pages.ASSETS_URL
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
Handler = Callable[[Request], Response]


def create_app(
    store: RunStore, desk: JudgingDesk | None = None, *, hosts: HostRule | None = None
) -> Starlette:
    """The viewer over ``store`` (left open: the caller owns it); ``desk`` holds the set
    files its judging page may read and write; ``hosts`` the ``Host`` names it answers
    besides loopback ones (``web.hosts``)."""
    warm_templates()
    desk = desk or JudgingDesk()

    def page(render: Callable[[RunStore, Request], str]) -> Handler:
        def handler(request: Request) -> Response:
            try:
                return HTMLResponse(render(store, request))
            except RevalError as e:
                return HTMLResponse(pages.error_page(e), status_code=_status(e))

        return handler

    def run_json(request: Request) -> Response:
        try:
            document = pages.run_document(store, request.path_params["run_id"])
        except RevalError as e:
            return JSONResponse({"error": str(e)}, status_code=_status(e))
        return Response(json.dumps(document, ensure_ascii=False), media_type="application/json")

    routes = [
        Route("/", page(pages.runs_page)),
        Route("/runs/{run_id}.json", run_json),
        Route("/runs/{run_id}", page(pages.run_page)),
        Route("/history", page(pages.history_page)),
        Route("/compare", page(pages.compare_page)),
        Route(ASSETS_URL + "/{name}", _asset),
        *judging_routes(desk),
    ]
    return Starlette(routes=routes, middleware=[Middleware(HostGuard, rule=hosts or HostRule())])


def warm_templates() -> None:
    """Compile every template and read every asset now, so the first page is not slow."""
    env = environment(pages.JUDGING)
    for name in env.list_templates(extensions=["j2"]):
        env.get_template(name)
    for name in (*STYLES, *SCRIPTS):
        asset(name)
    for name in pages.PAGE_SCRIPTS:
        page_asset(name)


@cache
def page_asset(name: str) -> str:
    """A script of the judging page (``web/judging/assets``, shipped as package data)."""
    return resources.files(pages.JUDGING).joinpath("assets", name).read_text(encoding="utf-8")


def _asset(request: Request) -> Response:
    name = request.path_params["name"]
    if name in pages.PAGE_SCRIPTS:
        text = page_asset(name)
    elif name in (*STYLES, *SCRIPTS):
        text = asset(name)
    else:
        return Response("not found", status_code=404)
    suffix = name[name.rfind(".") :]
    headers = {"Cache-Control": "max-age=3600"}
    return Response(text, media_type=_TYPES[suffix], headers=headers)


def judging_routes(desk: JudgingDesk) -> list[Route]:
    """The judging page of each registered set, its data, and one question's save."""

    def judge_page(request: Request) -> Response:
        try:
            return HTMLResponse(pages.judge_page(desk, request.path_params["key"]))
        except RevalError as e:
            return HTMLResponse(pages.error_page(e), status_code=_status(e))

    def judge_list(request: Request) -> Response:
        return HTMLResponse(pages.judge_list_page(desk))

    def judge_data(request: Request) -> Response:
        try:
            return JSONResponse(desk.page_data(request.path_params["key"]))
        except RevalError as e:
            return JSONResponse({"error": str(e)}, status_code=_status(e))

    async def save(request: Request) -> Response:
        refusal = _cross_site(request)
        if refusal:
            return JSONResponse({"error": refusal}, status_code=403)
        try:
            body = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        except RecursionError:
            return JSONResponse({"error": "the body is nested too deeply"}, status_code=400)
        params = request.path_params
        try:
            result = await run_in_threadpool(desk.save, params["key"], params["question"], body)
        except RevalError as e:
            return JSONResponse({"error": str(e)}, status_code=_status(e))
        answer = {"state": result.state.value, "concurrent": result.concurrent}
        return JSONResponse({**answer, "version": result.version})

    return [
        Route("/judge", judge_list),
        Route("/judge/{key}", judge_page),
        Route("/judge/{key}/data.json", judge_data),
        Route("/judge/{key}/questions/{question}", save, methods=["POST"]),
    ]


def _cross_site(request: Request) -> str | None:
    """Why a save may come from another site's page, or ``None``: saves must be JSON
    (a cross-site page cannot send that without a preflight this server never allows)
    and, when the browser names an origin, from this viewer itself."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return "a judgement must be sent as application/json"
    origin = request.headers.get("origin")
    if origin is not None and origin.partition("://")[2] != request.headers.get("host"):
        return f"saves from {origin} are refused: only this viewer's pages may save"
    return None


def _status(error: RevalError) -> int:
    if isinstance(error, UnknownNameError):
        return 404
    if isinstance(error, InputError):
        return 400
    if isinstance(error, StoreError):
        return 503
    return 500
