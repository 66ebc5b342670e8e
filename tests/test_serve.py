"""``graphmind serve``: the HTTP API driven through a real uvicorn on a free loopback
port with an HTTP client, on FalkorDB Lite and on the Neo4j under test; the streamed
events, the ask queue, the token rules and the error bodies."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from buildkit import minimal_pdf
from graphmind.core.errors import ConfigError
from graphmind.llm.base import Message
from graphmind.serve.auth import check_bind, is_loopback
from graphmind.serve.gate import AskGate
from helpers.ask import DOCS, QUESTION, responder
from helpers.serve import no_traceback, read_events, service_for, serving

STREAMED = ["started", "round", "passages", "verdicts", "gap"]


def error_of(response: httpx.Response, status: int, kind: str, exit_code: int) -> str:
    """The error body's message, after checking its status, class and exit code."""
    no_traceback(response.text)
    assert response.status_code == status, response.text
    body = response.json()
    assert body["type"] == kind and body["exit_code"] == exit_code, body
    return str(body["error"])


def test_the_api_answers_traces_audits_and_takes_feedback(
    tmp_path: Path, store_env: dict[str, str], backend: str
) -> None:
    with serving(tmp_path, store_env) as s:
        c = s.client
        schema = c.get("/openapi.json").json()
        for path in ("/ask", "/decisions/{decision_id}", "/documents", "/v1/chat/completions"):
            assert path in schema["paths"], path

        asked = c.post("/ask", json={"question": QUESTION, "max_rounds": 3})
        assert asked.status_code == 200, asked.text
        answer = asked.json()
        assert answer["answer"] == "Port Ellis" and answer["grade"] == "INFERRABLE"
        assert answer["rounds"] == 2 and answer["queue_position"] == 0
        # the short answer's citations first; after them, any passage only the full answer
        # cites (the fixture's full answer cites Brask when it was shown)
        short = answer["citations"][: answer["short_citations"]]
        assert {c["title"] for c in short} == {"Aldo Vance", "Silent Harbor"}
        assert [c["ref"] for c in answer["citations"]] == list(
            range(1, len(answer["citations"]) + 1)
        )
        assert {c["title"] for c in answer["citations"][len(short) :]} <= {"Brask"}

        trace = c.get(f"/decisions/{answer['decision_id']}").json()
        assert trace["answer"] == "Port Ellis" and trace["question"] == QUESTION
        assert [r["number"] for r in trace["rounds"]] == [1, 2]
        assert trace["rounds"][0]["judgement"]["missing"] == "Where was Silent Harbor recorded?"
        listed = c.get("/decisions").json()
        assert [d["id"] for d in listed][:2] == [answer["decision_id"], s.decision.id]

        marked = c.post(f"/decisions/{s.decision.id}/feedback", json={"gold": "Port Ellis"})
        assert marked.json() == {
            "decision_id": s.decision.id,
            "outcome": "correct",
            "previous": "pending",
            "answer": "Port Ellis",
            "f1": 1.0,
        }
        wrong = c.post(f"/decisions/{answer['decision_id']}/feedback", json={"correct": False})
        assert wrong.json()["outcome"] == "incorrect"
        edges = s.service.store().run_text(
            "MATCH (:Agent)-[e:DECIDED]->(d:Decision) RETURN d.id AS id, e.outcome AS outcome"
        )
        assert {r["id"]: r["outcome"] for r in edges.records()} == {
            s.decision.id: "correct",
            answer["decision_id"]: "incorrect",
        }

        audits = c.get("/audit").json()
        assert audits["decision_chain"]["parameters"] == ["id"]
        chain = c.get("/audit/decision_chain", params={"id": s.decision.id}).json()
        assert chain["rows"] and {r["question"] for r in chain["rows"]} == {QUESTION}
        one = c.get("/audit/decision_chain", params={"id": s.decision.id, "limit": 1}).json()
        assert one["rows"] == chain["rows"][:1] and one["more"] is True
        foreign = c.get("/audit/decision_chain", params={"id": "x", "DETACH": "1"})
        assert "takes $id, not 'DETACH'" in error_of(foreign, 400, "BadInputError", 2)
        error_of(c.get("/audit/drop_everything"), 404, "NotFoundError", 3)

        graph = c.get(f"/decisions/{s.decision.id}/graph")
        assert graph.headers["content-type"].startswith("text/html")
        assert "neo4j-viz-data" in graph.text and s.decision.id in graph.text

        doctor = c.get("/doctor").json()
        assert doctor["backend"] == backend and doctor["store"]["counts"]["Decision"] == 2
        assert doctor["queue"] == {"slots": 8, "running": 0, "waiting": 0}
        titles = {d["title"] for d in c.get("/documents").json()}
        assert titles == set(DOCS)
        assert [d["title"] for d in c.get("/documents", params={"match": "Quill"}).json()] == [
            "Mara Quill"
        ]


def test_documents_are_uploaded_built_and_deleted(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    with serving(tmp_path, store_env, max_upload=20_000) as s:
        c = s.client
        note = b"Port Ellis is a harbour town where the ferry Dunmore Star docks."
        built = c.post(
            "/documents",
            files=[("files", ("../../Port Ellis.md", note))],
            data={"extract": "none"},
        )
        assert built.status_code == 200, built.text
        assert built.json()["documents_new"] == 1 and built.json()["load_failures"] == []
        docs = {d["title"]: d for d in c.get("/documents").json()}
        ellis = docs["Port Ellis"]
        assert ellis["source"] == str(s.service.uploads() / "Port Ellis.md")  # no folders

        with c.stream(
            "POST",
            "/documents",
            files=[("files", ("ferry.txt", b"The Dunmore Star sails at dawn."))],
            data={"extract": "none"},
            headers={"Accept": "text/event-stream"},
        ) as streamed:
            events = list(read_events(streamed))
        names = [name for name, _ in events]
        assert names[-1] == "report" and "progress" in names
        assert events[-1][1]["documents_new"] == 1
        assert {"stage", "done", "total"} <= set(events[0][1])

        # a bad file: the build's own named error, nothing built
        bad = c.post("/documents", files=[("files", ("broken.pdf", b"%PDF-1.4 garbage"))])
        message = error_of(bad, 422, "GraphMindError", 1)
        assert message == "nothing was built: 1 file(s) or entries not read"
        (failure,) = bad.json()["report"]["load_failures"]
        assert failure["source"].endswith("broken.pdf") and failure["reason"]
        # a good PDF with a bad one: the good one is built, the bad one named
        mixed = c.post(
            "/documents",
            files=[
                ("files", ("harbour.pdf", minimal_pdf("Harbour master Ines Vale"))),
                ("files", ("broken.pdf", b"%PDF-1.4 garbage")),
            ],
            data={"extract": "none"},
        )
        assert mixed.status_code == 200 and mixed.json()["documents_new"] == 1
        assert [f["source"] for f in mixed.json()["load_failures"]] == [failure["source"]]

        too_big = c.post("/documents", files=[("files", ("big.txt", b"x" * 30_000))])
        assert "over 20000 bytes, the most" in error_of(too_big, 413, "TooLargeError", 2)
        huge = c.post("/documents", files=[("files", ("big.txt", b"x" * 200_000))])
        assert "over 20000 bytes, the most" in error_of(huge, 413, "TooLargeError", 2)
        none = c.post("/documents", data={"extract": "none"})
        error_of(none, 400, "BadInputError", 2)
        odd = c.post("/documents", files=[("files", ("a.txt", b"x"))], data={"extract": "all"})
        assert "extract must be" in error_of(odd, 400, "BadInputError", 2)

        # no token here, yet another site's page may not write (a form upload, a delete)
        evil = {"Origin": "http://evil.example"}
        crossed = c.post("/documents", files=[("files", ("x.txt", b"x"))], headers=evil)
        error_of(crossed, 403, "CrossSiteError", 2)
        error_of(c.delete(f"/documents/{ellis['id']}", headers=evil), 403, "CrossSiteError", 2)
        gone = c.delete(f"/documents/{ellis['id']}")
        assert gone.status_code == 200, gone.text
        assert [d["title"] for d in gone.json()["documents"]] == ["Port Ellis"]
        assert "Port Ellis" not in {d["title"] for d in c.get("/documents").json()}
        again = c.delete(f"/documents/{ellis['id']}")
        assert "no document with id" in error_of(again, 404, "NotFoundError", 3)
        by_title = c.delete("/documents/Mara Quill")  # an id only: a title names nothing
        error_of(by_title, 404, "NotFoundError", 3)


def test_error_bodies_are_json_with_the_exit_code_class(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    with serving(tmp_path, store_env) as s:
        c = s.client
        long = c.post("/ask", json={"question": "why " * 1001})
        assert error_of(long, 400, "BadInputError", 2) == (
            "the question is 4004 characters long; the most is 4000"
        )
        for body in ("{not json", "[]", '{"k": 3}', '{"question": "x", "color": "red"}'):
            sent = c.post("/ask", content=body, headers={"Content-Type": "application/json"})
            assert error_of(sent, 400, "BadInputError", 2).startswith("malformed request")
        rounds = c.post("/ask", json={"question": QUESTION, "max_rounds": 99})
        assert "max_rounds must be 1 to 10" in error_of(rounds, 400, "BadInputError", 2)
        mode = c.post("/ask", json={"question": QUESTION, "mode": "psychic"})
        assert "mode" in error_of(mode, 400, "BadInputError", 2)
        error_of(c.post("/ask", json={"question": "  "}), 400, "BadInputError", 2)
        missing = c.get("/decisions/nope")
        assert error_of(missing, 404, "NotFoundError", 3) == "no decision 'nope' in the store"
        unknown = c.post("/decisions/nope/feedback", json={"correct": True})
        error_of(unknown, 404, "NotFoundError", 3)
        both = c.post(f"/decisions/{s.decision.id}/feedback", json={"correct": True, "gold": "x"})
        assert "exactly one of" in error_of(both, 400, "BadInputError", 2)
        error_of(c.get("/decisions/nope/graph"), 404, "NotFoundError", 3)
        error_of(c.get("/no/such/route"), 404, "NotFoundError", 3)
        error_of(c.get("/decisions", params={"limit": 0}), 400, "BadInputError", 2)
        # streamed: the same body as the stream's last event
        with c.stream(
            "POST", "/ask", json={"question": "x" * 4001}, headers={"Accept": "text/event-stream"}
        ) as streamed:
            events = list(read_events(streamed))
        assert events[-1] == (
            "error",
            {
                "error": "the question is 4001 characters long; the most is 4000",
                "type": "BadInputError",
                "exit_code": 2,
            },
        )

        # an unexpected failure: a 500 with the class, the details only in the log
        def boom(limit: int = 50) -> list[dict[str, Any]]:
            raise RuntimeError("secret detail")

        s.service.decisions = boom  # type: ignore[method-assign]
        crashed = c.get("/decisions")
        assert error_of(crashed, 500, "GraphMindError", 1) == (
            "internal error (RuntimeError); the server log has the details"
        )
        assert "secret detail" not in crashed.text
        assert c.get("/docs").status_code == 404  # no page that needs a CDN
        # the server survived all of it
        assert c.post("/ask", json={"question": QUESTION}).json()["answer"] == "Port Ellis"


def test_an_empty_store_is_refused_with_its_exit_code(tmp_path: Path) -> None:
    service, _ = service_for(tmp_path, {})
    from graphmind.serve.app import create_app, running

    with running(create_app(service)) as url:
        empty = httpx.post(f"{url}/ask", json={"question": QUESTION}, timeout=60)
    assert "has no documents" in error_of(empty, 409, "EmptyStoreError", 4)


def test_streamed_rounds_arrive_as_they_happen(tmp_path: Path, store_env: dict[str, str]) -> None:
    """Round 2's answer call waits until the client has read round 1's events: were the
    events held back until the answer, it would wait in vain."""
    seen_round_one = threading.Event()
    released: list[bool] = []

    def second_round_waits(messages: list[Message]) -> str:
        if "Still needed" in messages[1]["content"] and len(messages) == 2:  # answer call
            released.append(seen_round_one.wait(30))
        return responder(messages)

    with serving(tmp_path, store_env, responder_=second_round_waits) as s:
        events: list[tuple[str, dict[str, Any]]] = []
        with s.client.stream(
            "POST", "/ask", json={"question": QUESTION}, headers={"Accept": "text/event-stream"}
        ) as streamed:
            assert streamed.headers["content-type"].startswith("text/event-stream")
            for name, data in read_events(streamed):
                events.append((name, data))
                if name == "gap":
                    seen_round_one.set()
    assert released == [True]
    names = [name for name, _ in events]
    assert names == [*STREAMED, "round", "passages", "verdicts", "answer"]
    by_name = {name: data for name, data in events if name != "round"}
    first = events[1][1]
    assert first == {"round": 1, "queries": [QUESTION]}
    assert events[5][1] == {"round": 2, "queries": [QUESTION, "Silent Harbor recorded location"]}
    assert by_name["gap"] == {"round": 1, "missing": "Where was Silent Harbor recorded?"}
    verdicts = events[3][1]
    assert verdicts["draft_answer"] == "Silent Harbor" and verdicts["grade"] == "PARTIAL"
    passages = {p["chunk_id"]: p for p in events[2][1]["passages"]}
    assert {v["verdict"] for v in verdicts["verdicts"]} == {"used", "rejected"}
    assert all(v["chunk_id"] in passages for v in verdicts["verdicts"])
    answer = events[-1][1]
    assert answer["answer"] == "Port Ellis" and answer["rounds"] == 2
    assert s.service.trace(answer["decision_id"]).answer == "Port Ellis"  # recorded


def test_a_local_model_answers_one_ask_at_a_time_and_reports_places(tmp_path: Path) -> None:
    first_running = threading.Event()
    go_on = threading.Event()

    def slow(messages: list[Message]) -> str:
        first_running.set()
        go_on.wait(30)
        return responder(messages)

    streams: dict[int, list[tuple[str, dict[str, Any]]]] = {}

    def ask(n: int, url: str) -> None:
        with (
            httpx.Client(base_url=url, timeout=120) as client,
            client.stream(
                "POST", "/ask", json={"question": QUESTION}, headers={"Accept": "text/event-stream"}
            ) as streamed,
        ):
            streams[n] = list(read_events(streamed))

    with serving(tmp_path, {}, responder_=slow, slots=1) as s:
        assert s.service.gate.slots == 1
        one = threading.Thread(target=ask, args=(1, s.url))
        one.start()
        assert first_running.wait(30)
        two = threading.Thread(target=ask, args=(2, s.url))
        two.start()
        deadline = time.monotonic() + 30
        while s.service.gate.waiting < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert s.service.gate.waiting == 1 and s.service.gate.running == 1
        go_on.set()
        one.join(60)
        two.join(60)
    assert streams[1][0][0] == "started" and streams[1][-1][1]["queue_position"] == 0
    assert streams[2][:2] == [("queued", {"position": 1}), ("started", {"question": QUESTION})]
    assert streams[2][-1][1]["queue_position"] == 1
    assert streams[2][-1][1]["answer"] == "Port Ellis"


def test_the_gate_lets_asks_in_first_come_first_served() -> None:
    gate = AskGate(2)
    order: list[int] = []
    places: dict[int, list[int]] = {}
    hold = threading.Event()
    inside = threading.Barrier(3)

    def holder() -> None:
        with gate.turn():
            inside.wait(10)
            hold.wait(10)

    def waiter(n: int) -> None:
        with gate.turn(lambda place: places.setdefault(n, []).append(place)):
            order.append(n)

    holders = [threading.Thread(target=holder) for _ in range(2)]
    for t in holders:
        t.start()
    inside.wait(10)
    waiters = []
    for n in range(3):
        waiters.append(threading.Thread(target=waiter, args=(n,)))
        waiters[-1].start()
        while gate.waiting < n + 1:
            time.sleep(0.005)
    hold.set()
    for t in holders + waiters:
        t.join(10)
    assert order == [0, 1, 2]
    # each told its first place, then each move forward as the line moves
    for n in range(3):
        assert places[n][0] == n + 1 and places[n] == sorted(set(places[n]), reverse=True)
    assert gate.running == 0 and gate.waiting == 0


def test_writing_requests_need_the_token(tmp_path: Path) -> None:
    with serving(tmp_path, {}, token="s3cret") as s:
        c = s.client
        feedback = f"/decisions/{s.decision.id}/feedback"
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "s3cret"}):
            refused = c.post(feedback, json={"correct": True}, headers=headers)
            assert "Authorization: Bearer" in error_of(refused, 401, "UnauthorizedError", 2)
            assert refused.headers["www-authenticate"] == "Bearer"
        files = [("files", ("a.txt", b"Some text."))]
        error_of(c.post("/documents", files=files), 401, "UnauthorizedError", 2)
        error_of(c.delete("/documents/anything"), 401, "UnauthorizedError", 2)
        assert c.get(f"/decisions/{s.decision.id}").json()["outcome"] == "pending"

        good = {"Authorization": "Bearer s3cret"}
        assert c.post(feedback, json={"correct": True}, headers=good).json()["outcome"] == (
            "correct"
        )
        built = c.post("/documents", files=files, data={"extract": "none"}, headers=good)
        assert built.status_code == 200, built.text
        # another site's page is refused even with the token; the server's own page is not
        evil = {**good, "Origin": "http://evil.example"}
        crossed = c.post("/documents", files=files, data={"extract": "none"}, headers=evil)
        assert "another site" in error_of(crossed, 403, "CrossSiteError", 2)
        same = {**good, "Origin": s.url}
        assert c.post(feedback, json={"correct": False}, headers=same).status_code == 200
        # reading and asking need no token
        assert c.get("/documents").status_code == 200
        assert c.post("/ask", json={"question": QUESTION}).status_code == 200


def test_only_loopback_is_served_without_a_token() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "::1", "localhost", "[::1]"):
        assert is_loopback(host), host
        check_bind(host, None)
    for host in ("0.0.0.0", "::", "192.168.1.10", "example.org"):
        assert not is_loopback(host), host
        with pytest.raises(ConfigError, match="GRAPHMIND_SERVE_TOKEN"):
            check_bind(host, None)
        check_bind(host, "s3cret")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_graphmind_serve_starts_on_loopback_and_refuses_a_public_address(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GRAPHMIND_")},
        "GRAPHMIND_STORE": f"falkordb-lite://{tmp_path / 'graph.db'}",
        "GRAPHMIND_EMBEDDER": "hash:384",
        "GRAPHMIND_MODEL_DIR": str(tmp_path / "no-models"),
    }
    exe = [sys.executable, "-m", "graphmind.cli", "serve"]
    refused = subprocess.run(
        [*exe, "--host", "0.0.0.0"], capture_output=True, text=True, env=env, timeout=60
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "error: refusing to listen on 0.0.0.0 without a token: set GRAPHMIND_SERVE_TOKEN "
        "(writing requests then need it), or listen on 127.0.0.1"
    ]
    port = _free_port()
    server = subprocess.Popen(
        [*exe, "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                listed = httpx.get(f"http://127.0.0.1:{port}/documents", timeout=10)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert listed.status_code == 200 and listed.json() == []
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        assert "<title>GraphMind</title>" in page.text
        asked = httpx.post(f"http://127.0.0.1:{port}/ask", json={"question": "Who?"}, timeout=30)
        assert "no LLM is configured" in error_of(asked, 400, "ConfigError", 2)
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=60)
    # uvicorn shuts down cleanly, then ends by the signal it was sent
    assert server.returncode in (0, -15), out
    assert "Application shutdown complete." in out and "Traceback" not in out


def test_the_page_is_offline_html(tmp_path: Path) -> None:
    with serving(tmp_path, {}) as s:
        page = s.client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<script src" not in page.text and "http://" not in page.text
    assert "https://" not in page.text
    json.dumps(page.text)  # plain text, nothing binary
