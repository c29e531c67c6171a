"""Live mode's "Run check", graded by the Jupyter server, never in the reader's kernel.

A page in live mode posts the reader's answer to `POST <server>/mlx-autodiff/check`, with the tab's
token, as {"path": "book/04-step-0.ipynb", "label": "ex-04-smoke-test", "answer": "...",
"language": "zh_CN", "request": "7"}. The handler grades it as `mlx-autodiff-exercises check` does
(`grade.grade_answers`: the chapter's set-up, the answer and the book's checks in a grading
process of its own) and answers {"label", "passed", "reason", "code", "request"}, the reason in the
page's language and `request` the request's own id, so a page shows only the reply to its latest
check. `GET <server>/mlx-autodiff/check` answers the grader's time limits, {"timeout_s",
"setup_timeout_s"}, which a page says while a check runs long. Nothing the reader ran in their
kernel reaches the grade, and the kernel need not even be running. `make live` and
`make serve-kernel` load this extension (bookkit/live/server.py); on another Jupyter server,
`jupyter server extension enable bookkit.workbook.server` does.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from bookkit.words import languages
from bookkit.workbook.chapters import ROOT, resolve
from bookkit.workbook.errors import UnknownChapterError
from bookkit.workbook.grade import DEFAULT_TIMEOUT, SETUP_TIMEOUT, grade_answers
from bookkit.workbook.numbering import numbered

ROUTE = "/mlx-autodiff/check"


class CheckHandler(APIHandler):
    """POST an answer, get its verdict (see the module's docstring)."""

    @web.authenticated
    async def get(self) -> None:
        """The grader's time limits: how long a check may take, which the page says while it waits."""
        self.finish(json.dumps({"timeout_s": DEFAULT_TIMEOUT, "setup_timeout_s": SETUP_TIMEOUT}))

    @web.authenticated
    async def post(self) -> None:
        body = self.get_json_body() or {}
        path, label, answer = body.get("path"), body.get("label"), body.get("answer")
        if not all(isinstance(value, str) for value in (path, label, answer)):
            raise web.HTTPError(400, "send {path, label, answer, language}: the page, the exercise, the code")
        try:
            chapter = resolve(Path(path).stem, ROOT)
        except UnknownChapterError as error:
            raise web.HTTPError(404, str(error)) from error
        found = [ex for ex in numbered(chapter) if ex.label == label and ex.graded]
        if not found:
            raise web.HTTPError(404, f"chapter {chapter.name} has no graded exercise {label}")
        language = body.get("language") if body.get("language") in languages() else "en"
        results = await asyncio.to_thread(grade_answers, chapter, found[0], [answer], language)
        reply = results[0].as_json()
        if isinstance(body.get("request"), str):
            reply["request"] = body["request"]  # the page's id of this request: it shows only its latest
        self.finish(json.dumps(reply, ensure_ascii=False))


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "bookkit.workbook.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    web_app = serverapp.web_app
    route = url_path_join(web_app.settings["base_url"], ROUTE)
    web_app.add_handlers(".*$", [(route, CheckHandler)])
