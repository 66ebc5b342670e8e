"""``graphmind mcp``: the MCP server, driven end to end over stdio by the official SDK's
own client, on a small store built with the hashed embedder and a scripted LLM, on
FalkorDB Lite and on the Neo4j under test."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from openai_server import FakeServer, Reply, completion_body

from graphmind.mcp_server import MAX_AUDIT_ROWS, audit_queries
from helpers.ask import QUESTION, asked_on_disk
from helpers.security import INJECTION

mcp = pytest.importorskip("mcp", reason="graphmind mcp needs the mcp SDK")

TOOLS = {"ask", "search", "trace", "feedback", "audit", "doctor"}


def payload(result: Any) -> Any:
    """A tool result's JSON: its structured content, else its text."""
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def error_text(result: Any) -> str:
    assert result.is_error, result
    return " ".join(getattr(block, "text", "") for block in result.content)


def test_mcp_server_over_stdio(tmp_path: Path, store_env: dict[str, str], backend: str) -> None:
    decision, _cli = asked_on_disk(tmp_path, store_env)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GRAPHMIND_")},
        "GRAPHMIND_STORE": f"falkordb-lite://{tmp_path / 'graph.db'}",
        **store_env,
        "GRAPHMIND_EMBEDDER": "hash:384",
        # no offline model there: `ask` must fail cleanly, not load a real LLM
        "GRAPHMIND_MODEL_DIR": str(tmp_path / "no-models"),
        "GRAPHMIND_LLM_CACHE": "off",
    }
    params = mcp.StdioServerParameters(
        command=sys.executable, args=["-m", "graphmind.cli", "mcp"], env=env, cwd=str(tmp_path)
    )
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with mcp.Client(params, read_timeout_seconds=120) as client:
            listed = await client.list_tools()
            seen["tools"] = {t.name: t for t in listed.tools}
            seen["search"] = await client.call_tool(
                "search", {"query": "Where was Silent Harbor recorded?", "k": 3}
            )
            seen["empty"] = await client.call_tool("search", {"query": "  "})
            seen["trace"] = await client.call_tool("trace", {"decision_id": decision.id})
            seen["no_trace"] = await client.call_tool("trace", {"decision_id": "nope"})
            seen["audit"] = await client.call_tool(
                "audit", {"name": "decision_chain", "params": {"id": decision.id}}
            )
            seen["audit_one"] = await client.call_tool(
                "audit", {"name": "decision_chain", "params": {"id": decision.id}, "limit": 1}
            )
            seen["audit_none"] = await client.call_tool(
                "audit", {"name": "decision_chain", "params": {"id": decision.id}, "limit": 0}
            )
            seen["injected"] = await client.call_tool(
                "audit", {"name": "decision_chain", "params": {"id": decision.id, INJECTION: 1}}
            )
            seen["audit_many"] = await client.call_tool(
                "audit",
                {"name": "decision_chain", "params": {"id": decision.id}, "limit": 10**9},
            )
            seen["no_audit"] = await client.call_tool("audit", {"name": "drop_everything"})
            seen["no_param"] = await client.call_tool("audit", {"name": "decision_chain"})
            seen["feedback"] = await client.call_tool(
                "feedback", {"decision_id": decision.id, "gold": "Port Ellis"}
            )
            seen["both"] = await client.call_tool(
                "feedback", {"decision_id": decision.id, "correct": True, "gold": "x"}
            )
            seen["ask"] = await client.call_tool("ask", {"question": QUESTION})
            seen["doctor"] = await client.call_tool("doctor", {})
            seen["after"] = await client.call_tool("search", {"query": "Aldo Vance", "k": 1})

    anyio.run(session)

    tools = seen["tools"]
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert len(tool.description or "") > 80, tool.name
    assert tools["search"].annotations.read_only_hint is True
    assert tools["ask"].annotations.read_only_hint is False
    assert all(f"- {name}:" in tools["audit"].description for name in audit_queries())

    found = payload(seen["search"])
    passages = found["passages"]
    assert 1 <= len(passages) <= 3 and [p["rank"] for p in passages] == list(
        range(1, len(passages) + 1)
    )
    harbor = next(p for p in passages if p["title"] == "Silent Harbor")
    assert "Port Ellis" in harbor["text"]
    assert all(p["found_by"] and p["document_id"] and p["source"] for p in passages)
    assert "the query is empty" in error_text(seen["empty"])

    trace = payload(seen["trace"])
    assert trace["id"] == decision.id and trace["answer"] == "Port Ellis"
    assert {c["chunk_id"] for c in trace["citations"]} == {c.chunk_id for c in decision.citations}
    assert "no decision 'nope'" in error_text(seen["no_trace"])

    rows = payload(seen["audit"])["rows"]
    assert rows and {r["question"] for r in rows} == {QUESTION}
    assert payload(seen["audit"])["more"] is False
    one = payload(seen["audit_one"])
    assert one["rows"] == rows[:1] and one["more"] is (len(rows) > 1)
    assert "limit must be 1 to" in error_text(seen["audit_none"])
    assert "takes $id, not 'x`=1 MATCH" in error_text(seen["injected"])
    assert f"limit must be 1 to {MAX_AUDIT_ROWS}" in error_text(seen["audit_many"])
    assert "no audit query 'drop_everything'" in error_text(seen["no_audit"])
    assert "decision_chain" in error_text(seen["no_param"])

    feedback = payload(seen["feedback"])
    assert feedback["outcome"] == "correct" and feedback["previous"] == "pending"
    assert "exactly one of" in error_text(seen["both"])
    assert "no LLM is configured" in error_text(seen["ask"])

    doctor = payload(seen["doctor"])
    assert doctor["backend"] == backend and doctor["store"]["counts"]["Decision"] == 1
    # the server survived every error above
    assert payload(seen["after"])["passages"][0]["title"] == "Aldo Vance"


def test_mcp_ask_returns_the_short_and_the_full_answer(
    tmp_path: Path, serve: Callable[..., FakeServer]
) -> None:
    """``ask`` gives both answers with the passages the full answer's markers number;
    ``short`` makes no full-answer call."""
    from graphmind import api
    from graphmind.config import load_settings
    from graphmind.ingest.options import BuildOptions
    from graphmind.mcp_server import GraphMindTools

    replies = {
        "Answer": {"answer": "Vienna", "citations": [1]},
        "Check": {"complete": True, "missing": "", "query": ""},
        "FullAnswer": {"sentences": [{"text": "She was born in Vienna.", "citations": [1]}]},
    }
    asked: list[str] = []

    def reply(body: dict[str, Any]) -> Reply:
        name = body.get("response_format", {}).get("json_schema", {}).get("name", "")
        asked.append(name)
        return 200, {}, completion_body(json.dumps(replies[name]))

    server = serve(reply)
    docs = tmp_path / "meitner.md"
    docs.write_text("Lise Meitner was born in Vienna in 1878.\n")
    settings = load_settings(
        store=f"falkordb-lite://{tmp_path / 'graph.db'}",
        embedder="hash:384",
        llm_base_url=server.base_url,
        llm_model="test-model",
    )
    api.build([docs], BuildOptions(extract="none"), settings)
    tools = GraphMindTools(lambda: settings)
    full = tools.ask("Where was Lise Meitner born?")
    assert full["answer"] == "Vienna" and full["full_answer"] == "She was born in Vienna. [1]"
    assert full["explanation"] == [{"text": "She was born in Vienna.", "refs": [1]}]
    assert full["citations"][0]["ref"] == 1 and full["short_citations"] == 1
    assert asked.count("FullAnswer") == 1
    short = tools.ask("Where was Lise Meitner born?", short=True)
    assert short["full_answer"] == "Vienna" and short["explanation"] == []
    assert asked.count("FullAnswer") == 1
