"""The web page at ``/``: one offline HTML file (no build step, no network), beside this
module. It asks with ``POST /ask`` and shows the rounds as they stream in, the answer
with its cited passages, the evidence graph (``/decisions/{id}/graph``, the page
``graphmind show`` draws), feedback buttons, and the past decisions and documents."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter(include_in_schema=False)
PAGE = Path(__file__).with_name("page.html")


@cache
def page_html() -> str:
    """The page's HTML (read once)."""
    return PAGE.read_text(encoding="utf-8")


@router.get("/", response_class=HTMLResponse)
def index() -> HTMLResponse:
    """The web page."""
    return HTMLResponse(page_html())
