"""The HTTP API: asking, decisions and their feedback, documents, doctor and audits.

Reading routes are open; building, deleting and feedback need the bearer token when the
server has one (``auth.require_token``). ``POST /ask`` and ``POST /documents`` stream
server-sent events when the request's ``Accept`` names ``text/event-stream``.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from typing import Annotated, Any, get_args

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict

from graphmind.ask.options import Scope
from graphmind.core.decision import Round
from graphmind.core.errors import BadInputError
from graphmind.ingest.options import BuildOptions, ExtractChoice
from graphmind.mcp_server import AUDIT_ROWS, audit_parameters, audit_queries
from graphmind.memory.render import decision_as_dict
from graphmind.serve.auth import require_token
from graphmind.serve.errors import TooLargeError, error_body
from graphmind.serve.payloads import answer_payload, round_events
from graphmind.serve.service import AskKnobs, AskMode, Memory, Service
from graphmind.serve.streaming import SSE_HEADERS, Emit, Event, sse_of, wants_stream

router = APIRouter()
Writes = [Depends(require_token)]
PROGRESS_EVERY = 0.25  # seconds between progress events of one stage


class AskRequest(BaseModel):
    """``POST /ask``: the question and the loop's options (left out: ``[ask]``)."""

    model_config = ConfigDict(extra="forbid")
    question: str
    mode: AskMode | None = None
    max_rounds: int | None = None
    k: int | None = None
    memory: Memory | None = None
    evolve_graph: bool | None = None
    short: bool = False  # the short answer only, without the full answer's call
    scope: Scope | None = None  # deep, broad (from the communities) or auto


class FeedbackRequest(BaseModel):
    """``POST /decisions/{id}/feedback``: ``correct`` (true/false) or ``gold``."""

    model_config = ConfigDict(extra="forbid")
    correct: bool | None = None
    gold: str | None = None


def service(request: Request) -> Service:
    """The app's service."""
    found: Service = request.app.state.service
    return found


Svc = Annotated[Service, Depends(service)]


def knobs_of(body: AskRequest) -> AskKnobs:
    """The loop's options the request set (None: the ``[ask]`` settings)."""
    explain = False if body.short else None
    return AskKnobs(
        body.mode, body.max_rounds, body.k, body.memory, body.evolve_graph, explain, body.scope
    )


def ask_job(svc: Service, body: AskRequest) -> Any:
    """The ask as a streamed job: queue, start, each round's events, the answer."""
    knobs = knobs_of(body)

    def job(emit: Emit) -> list[Event]:
        def on_round(r: Round) -> None:
            for name, data in round_events(r):
                emit(name, data)

        decision, place = svc.ask(
            body.question,
            knobs,
            on_round=on_round,
            on_wait=lambda place: emit("queued", {"position": place}),
            on_start=lambda: emit("started", {"question": body.question.strip()}),
        )
        return [("answer", answer_payload(decision, place))]

    return job


@router.post("/ask", tags=["ask"])
async def ask(request: Request, body: AskRequest, svc: Svc) -> Any:
    """Answer a question with the evidence loop; the decision is written to the graph.
    With ``Accept: text/event-stream``: the events ``queued`` (place in line), ``started``,
    then per round ``round``, ``passages``, ``verdicts`` and ``gap``, and ``answer``."""
    pool = request.app.state.pool
    if wants_stream(request.headers.get("accept")):
        stream = sse_of(pool, ask_job(svc, body))
        return StreamingResponse(stream, media_type="text/event-stream", headers=SSE_HEADERS)
    knobs = knobs_of(body)
    loop = asyncio.get_running_loop()
    decision, place = await loop.run_in_executor(pool, lambda: svc.ask(body.question, knobs))
    return answer_payload(decision, place)


@router.get("/decisions", tags=["decisions"])
def decisions(svc: Svc, limit: int = 50) -> list[dict[str, Any]]:
    """The most recent decisions, newest first."""
    return svc.decisions(limit)


@router.get("/decisions/{decision_id}", tags=["decisions"])
def trace(decision_id: str, svc: Svc) -> dict[str, Any]:
    """A past decision: rounds, passages, verdicts and reasons, citations, retrieval."""
    return decision_as_dict(svc.trace(decision_id))


@router.get("/decisions/{decision_id}/graph", response_class=HTMLResponse, tags=["decisions"])
def graph(decision_id: str, svc: Svc) -> HTMLResponse:
    """The decision's evidence graph: the offline page ``graphmind show`` writes."""
    return HTMLResponse(svc.graph_html(decision_id))


@router.post("/decisions/{decision_id}/feedback", dependencies=Writes, tags=["decisions"])
def feedback(decision_id: str, body: FeedbackRequest, svc: Svc) -> dict[str, Any]:
    """Mark a decision correct or incorrect, or score it against the right answer."""
    return dict(svc.feedback(decision_id, body.correct, body.gold).__dict__)


@router.get("/documents", tags=["documents"])
def documents(svc: Svc, match: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
    """The documents in the store, by source; ``match`` filters on title or source."""
    return [d.__dict__ for d in svc.documents(match, limit)]


@router.delete("/documents/{document_id}", dependencies=Writes, tags=["documents"])
def delete_document(document_id: str, svc: Svc) -> dict[str, Any]:
    """Delete a document with what only it held; decisions keep a note of it."""
    return svc.delete(document_id).as_dict()


class _Progress:
    """Build progress as ``progress`` events: a stage's start, then at most four a
    second, and its end."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.totals: dict[str, int | None] = {}
        self.done: dict[str, int] = {}
        self.sent: dict[str, float] = {}

    def start(self, stage: str, total: int | None) -> None:
        self.totals[stage], self.done[stage], self.sent[stage] = total, 0, time.monotonic()
        self.emit("progress", {"stage": stage, "done": 0, "total": total})

    def advance(self, stage: str, amount: int = 1) -> None:
        self.done[stage] = self.done.get(stage, 0) + amount
        total, now = self.totals.get(stage), time.monotonic()
        if self.done[stage] == total or now - self.sent.get(stage, 0.0) >= PROGRESS_EVERY:
            self.sent[stage] = now
            self.emit("progress", {"stage": stage, "done": self.done[stage], "total": total})


async def _uploads(request: Request) -> tuple[list[tuple[str, bytes]], dict[str, str]]:
    """The uploaded files and the other form fields, within the size limit."""
    most: int = request.app.state.max_upload
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > most + 64 * 1024:
        raise TooLargeError(_too_large(most))
    if "multipart/form-data" not in request.headers.get("content-type", ""):
        raise BadInputError("send the files as multipart/form-data, each as `files`")
    form = await request.form(max_files=100, max_fields=20)
    files: list[tuple[str, bytes]] = []
    fields: dict[str, str] = {}
    size = 0
    for key, value in form.multi_items():
        if isinstance(value, str):
            fields[key] = value
            continue
        data = await value.read(most + 1 - size)
        size += len(data)
        if size > most:
            raise TooLargeError(_too_large(most))
        files.append((value.filename or key, data))
    await form.close()
    return files, fields


def _too_large(most: int) -> str:
    return (
        f"the upload is over {most} bytes, the most this server takes "
        "(GRAPHMIND_SERVE_MAX_UPLOAD_MB)"
    )


def _build_options(svc: Service, fields: dict[str, str]) -> BuildOptions:
    extract = fields.get("extract") or svc.settings.build.extract
    if extract not in get_args(ExtractChoice):
        raise BadInputError(f"extract must be auto, llm, fast or none, got {extract!r}")
    mode: ExtractChoice = extract  # type: ignore[assignment]
    return replace(svc.settings.build, extract=mode)


def _built(report: Any) -> tuple[int, dict[str, Any]]:
    data: dict[str, Any] = report.as_dict()
    if report.nothing_built:
        reason = report.nothing_built_reason()
        return 422, {**error_body(reason, "GraphMindError", 1), "report": data}
    return 200, data


@router.post("/documents", dependencies=Writes, tags=["documents"])
async def upload(request: Request, svc: Svc) -> Response:
    """Upload files (multipart ``files``; form field ``extract``: auto, llm, fast or none) and
    build them. With ``Accept: text/event-stream``: ``progress`` events, then ``report``.
    Files not built are named in the report with the reason, as ``graphmind build`` does;
    when nothing was built the answer is that error (status 422)."""
    files, fields = await _uploads(request)
    options = _build_options(svc, fields)
    pool = request.app.state.pool
    if wants_stream(request.headers.get("accept")):

        def job(emit: Emit) -> list[Event]:
            status, data = _built(svc.build(files, options, _Progress(emit)))
            return [("report" if status == 200 else "error", data)]

        return StreamingResponse(sse_of(pool, job), media_type="text/event-stream")
    loop = asyncio.get_running_loop()
    report = await loop.run_in_executor(pool, lambda: svc.build(files, options))
    status, data = _built(report)
    return JSONResponse(json.loads(json.dumps(data, default=str)), status_code=status)


@router.get("/doctor", tags=["doctor"])
def doctor(svc: Svc) -> dict[str, Any]:
    """The store, its indexes and counts, the embedder, the LLM and the ask queue."""
    return svc.doctor()


@router.get("/audit", tags=["audit"])
def audits() -> dict[str, Any]:
    """The bundled read-only audit queries: name -> what it shows and its parameters."""
    return {
        name: {"description": text, "parameters": sorted(audit_parameters(name))}
        for name, text in audit_queries().items()
    }


@router.get("/audit/{name}", tags=["audit"])
def audit(
    name: str, request: Request, svc: Svc, limit: Annotated[int, Query()] = AUDIT_ROWS
) -> dict[str, Any]:
    """Run a bundled audit query read-only: its parameters as query parameters (a value
    that parses as JSON is read as JSON), its first ``limit`` rows and whether it had more."""
    params: dict[str, Any] = {}
    for key, value in request.query_params.items():
        if key != "limit":
            params[key] = _value(value)
    return svc.audit(name, params, limit)


def _value(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, int | float | bool) else text
