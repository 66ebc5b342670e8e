"""Load-test ``graphmind serve`` on loopback: concurrent clients for a fixed time mixing
asks (a scripted LLM with a fixed latency per call), traces, document lists and feedback.

For each store (a fresh FalkorDB Lite file; Neo4j when ``--neo4j URI`` is given, whose
GraphMind data is wiped first) a small corpus is built, the server runs in a child
process on a free 127.0.0.1 port, and the clients run here. Prints requests/s and
p50/p95/p99 latency per kind of request and the errors; afterwards, with the server
stopped, it checks that every ask's decision is in the store and every feedback's
outcome is on its DECIDED edge. Exit status 1 on any error or missing record.

    .venv/bin/python scripts/bench_serve.py [--clients 32] [--seconds 60] [--latency 0.05]
        [--neo4j bolt://127.0.0.1:7687] [--json]

Neo4j credentials: GRAPHMIND_NEO4J_USER / GRAPHMIND_NEO4J_PASSWORD.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx

from scripts.benchkit import responder

HOST = "127.0.0.1"
MIX = (("ask", 0.2), ("trace", 0.3), ("documents", 0.3), ("feedback", 0.2))
PEOPLE = 100
MAX_CLIENTS, MAX_SECONDS = 64, 600


def corpus() -> list[dict[str, str]]:
    """Two-hop facts: who directed which film, and where each film was recorded."""
    docs = []
    for n in range(PEOPLE):
        docs.append({"title": f"Director {n}", "text": f"Ines Vale {n} directed Film {n}."})
        docs.append({"title": f"Film {n}", "text": f"Film {n} was recorded in Harbour {n}."})
    return docs


def settings_for(store: str, folder: Path) -> Any:
    from graphmind.config import load_settings

    return load_settings(
        store=store,
        embedder="hash:384",
        llm_cache="off",
        model_dir=str(folder / "no-models"),
    )


def child(store: str, folder: Path, port: int, latency: float, slots: int) -> None:
    """The server: the bench's store, the hashed embedder and the scripted model."""
    import uvicorn

    from graphmind.factories import make_embedder
    from graphmind.llm import LLM
    from graphmind.llm.scripted import ScriptedProvider
    from graphmind.serve.app import create_app
    from graphmind.serve.service import Service

    settings = settings_for(store, folder)
    provider = ScriptedProvider(responder(latency), concurrency=slots)
    service = Service(settings, llm=LLM(provider, cache=None), embedder=make_embedder(settings))
    service.store()
    uvicorn.run(create_app(service), host=HOST, port=port, log_level="warning")


def prepare(store: str, folder: Path) -> None:
    """A fresh store holding the corpus (chunk-only)."""
    from graphmind.communities.pipeline import CommunityOptions
    from graphmind.factories import make_embedder, open_store
    from graphmind.ingest.build import run_build
    from graphmind.ingest.options import BuildOptions

    settings = settings_for(store, folder)
    data = folder / "corpus.json"
    data.write_text(json.dumps(corpus()), encoding="utf-8")
    with open_store(settings) as opened:
        if not store.startswith("falkordb-lite://"):  # a FalkorDB Lite file here is new
            opened.wipe()
        options = BuildOptions(extract="none", communities=False)
        run_build(opened, make_embedder(settings), None, [str(data)], options, CommunityOptions())


def verify(store: str, folder: Path, asked: set[str], judged: dict[str, bool]) -> dict[str, int]:
    """Decisions missing from the store, and feedback missing from DECIDED edges."""
    from graphmind.factories import open_store

    ids = sorted(asked | set(judged))
    with open_store(settings_for(store, folder), shared=True) as opened:
        rows = {r["id"]: r for r in opened.run("bench/serve_decisions", {"ids": ids})}
    wrong = [
        d
        for d, correct in judged.items()
        if (rows.get(d) or {}).get("edge_outcome") != ("correct" if correct else "incorrect")
    ]
    return {
        "decisions": len(asked),
        "decisions_missing": len([d for d in asked if d not in rows]),
        "feedback": len(judged),
        "feedback_missing": len(wrong),
    }


def verdict_for(decision: str) -> bool:
    """The outcome feedback always gives a decision (so the order of calls is moot)."""
    return int(decision[-1], 16) % 2 == 0


async def load(url: str, clients: int, seconds: float, seed: int) -> dict[str, Any]:
    """Run the clients; latencies per kind, errors, the decisions asked and judged."""
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    asked: set[str] = set()
    judged: dict[str, bool] = {}
    rng = random.Random(seed)
    kinds = [k for k, _ in MIX]
    weights = [w for _, w in MIX]

    async def ask(client: httpx.AsyncClient) -> httpx.Response:
        n = rng.randrange(PEOPLE)
        question = f"Where was the film by Ines Vale {n} recorded?"
        response = await client.post("/ask", json={"question": question, "max_rounds": 2})
        if response.status_code == 200:
            asked.add(response.json()["decision_id"])
        return response

    async def one(client: httpx.AsyncClient, kind: str) -> httpx.Response:
        if kind == "ask" or not asked:
            return await ask(client)
        decision = rng.choice(sorted(asked))
        if kind == "trace":
            return await client.get(f"/decisions/{decision}")
        if kind == "documents":
            return await client.get("/documents", params={"limit": 50})
        correct = verdict_for(decision)
        response = await client.post(f"/decisions/{decision}/feedback", json={"correct": correct})
        if response.status_code == 200:
            judged[decision] = correct
        return response

    async def run(client: httpx.AsyncClient, until: float) -> None:
        while time.monotonic() < until:
            kind = rng.choices(kinds, weights)[0]
            started = time.perf_counter()
            try:
                response = await one(client, kind)
                ok = response.status_code < 400
                detail = f"{kind}: HTTP {response.status_code} {response.text[:200]}"
            except httpx.HTTPError as exc:
                ok, detail = False, f"{kind}: {type(exc).__name__} {exc}"
            if ok:
                latencies[kind].append((time.perf_counter() - started) * 1000)
            else:
                errors.append(detail)

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        for _ in range(4):  # decisions to trace and judge from the start
            await ask(client)
        started = time.monotonic()
        await asyncio.gather(*(run(client, started + seconds) for _ in range(clients)))
        elapsed = time.monotonic() - started
    return {
        "latencies": latencies,
        "errors": errors,
        "asked": asked,
        "judged": judged,
        "elapsed": elapsed,
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float], elapsed: float) -> dict[str, float]:
    return {
        "requests": len(values),
        "per_second": round(len(values) / elapsed, 1),
        "p50_ms": round(percentile(values, 0.50), 1),
        "p95_ms": round(percentile(values, 0.95), 1),
        "p99_ms": round(percentile(values, 0.99), 1),
    }


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def bench_store(name: str, store: str, args: argparse.Namespace) -> dict[str, Any]:
    """Prepare, serve, load and verify one store."""
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        folder = Path(tmp)
        prepare(store, folder)
        port = free_port()
        command = [
            sys.executable,
            __file__,
            "--child",
            store,
            "--folder",
            tmp,
            "--port",
            str(port),
            "--latency",
            str(args.latency),
            "--slots",
            str(args.slots),
        ]
        server = subprocess.Popen(command, cwd=tmp)
        try:
            url = f"http://{HOST}:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(f"{url}/documents", params={"limit": 1}, timeout=5)
                    break
                except httpx.TransportError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit(f"the {name} server did not start") from None
                    time.sleep(0.2)
            result = asyncio.run(load(url, args.clients, args.seconds, args.seed))
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(60)
        checked = verify(store, folder, result["asked"], result["judged"])
    every = [v for values in result["latencies"].values() for v in values]
    return {
        "store": name,
        "clients": args.clients,
        "seconds": round(result["elapsed"], 1),
        "llm_latency_s": args.latency,
        "llm_slots": args.slots,
        "all": summary(every, result["elapsed"]),
        "kinds": {k: summary(v, result["elapsed"]) for k, v in sorted(result["latencies"].items())},
        "errors": len(result["errors"]),
        "first_errors": result["errors"][:5],
        **checked,
    }


def show(run: dict[str, Any]) -> None:
    print(
        f"\n{run['store']}: {run['clients']} clients, {run['seconds']} s, scripted LLM "
        f"{run['llm_latency_s'] * 1000:.0f} ms a call, {run['llm_slots']} at once"
    )
    print(f"{'':10} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for kind, s in [("all", run["all"]), *run["kinds"].items()]:
        print(
            f"{kind:10} {s['requests']:>9} {s['per_second']:>8} {s['p50_ms']:>8} "
            f"{s['p95_ms']:>8} {s['p99_ms']:>8}"
        )
    print(
        f"errors {run['errors']}; decisions asked {run['decisions']}, missing from the store "
        f"{run['decisions_missing']}; feedback given on {run['feedback']}, missing from its "
        f"DECIDED edge {run['feedback_missing']}"
    )
    for line in run["first_errors"]:
        print("  " + line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per LLM call")
    parser.add_argument("--slots", type=int, default=4, help="LLM calls at once (as an endpoint)")
    parser.add_argument("--neo4j", metavar="URI", help="also a Neo4j (its data is wiped)")
    parser.add_argument("--no-falkordb", action="store_true", help="only the Neo4j run")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--child", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.folder, args.port, args.latency, args.slots)
        return 0
    if not 1 <= args.clients <= MAX_CLIENTS or not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--clients must be 1-{MAX_CLIENTS} and --seconds 0-{MAX_SECONDS}")
    stores = [] if args.no_falkordb else [("falkordb", "")]
    if args.neo4j:
        stores.append(("neo4j", args.neo4j))
    runs = []
    for name, uri in stores:
        with tempfile.TemporaryDirectory() as scratch:
            store = uri or f"falkordb-lite://{scratch}/graph.db"
            runs.append(bench_store(name, store, args))
    if args.json:
        print(json.dumps({"runs": runs}, indent=2))
    else:
        for run in runs:
            show(run)
    bad = any(r["errors"] or r["decisions_missing"] or r["feedback_missing"] for r in runs)
    return 1 if bad else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
