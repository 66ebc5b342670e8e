"""Security boundaries, tried as an attacker would, on both stores: parameter names that
would write Cypher, reads without bound, secrets in output, script in a rendered page."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from conftest import store_settings
from graphmind.config import load_settings
from graphmind.core.errors import (
    BadInputError,
    ConfigError,
    QueryParameterError,
    QueryTimeoutError,
    StoreUnavailableError,
)
from graphmind.mcp_server import MAX_AUDIT_ROWS, MAX_TEXT, GraphMindTools
from graphmind.store.base import MAX_READ_ROWS, GraphStore
from helpers.ask import QUESTION, asked_on_disk
from helpers.browser import CHROMIUM, CHROMIUM_FLAGS
from helpers.security import INJECTION

HOSTILE_NAMES = [
    INJECTION,
    "a`b",
    "`",
    "x\nMATCH (n) RETURN n //",
    "x\\u0060=1 MATCH (n) RETURN n //",  # a unicode escape of the backtick
    "x\u0060=1 RETURN 1 //",
    "\u0430",  # Cyrillic a: an identifier to Python, not to Cypher's plain names
    "é",
    "",
    "1a",
    "a b",
    "a-b",
]
# a read that runs far past any timeout unless stopped (10^10 rows), cheap in memory
ENDLESS = (
    "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b "
    "WITH a, b WHERE a + b < 0 RETURN count(*) AS n"
)
PASSWORD = "hunter2-s3cret"
PAYLOAD = "</script><script>window.pwned=1</script>"


def tools_for(tmp_path: Path, store_env: dict[str, str], **extra: Any) -> GraphMindTools:
    """The MCP tools on the store ``asked_on_disk`` built."""
    settings = {**store_settings(tmp_path, store_env), "embedder": "hash:384", **extra}
    return GraphMindTools(lambda: load_settings(**settings))


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_parameter_name_that_is_not_an_identifier_is_refused(
    store: GraphStore, name: str
) -> None:
    """Every store path (named reads and writes, capped reads, the user's own query)
    refuses it before anything is sent."""
    with pytest.raises(QueryParameterError, match="not a plain identifier"):
        store.run("audit/decision_chain", {"id": "d1", name: 1})
    with pytest.raises(QueryParameterError, match="not a plain identifier"):
        store.read_capped("audit/decision_chain", {"id": "d1", name: 1}, 10)
    with pytest.raises(QueryParameterError, match="not a plain identifier"):
        store.run_text("RETURN 1 AS one", {name: 1}, max_rows=10)
    with pytest.raises(QueryParameterError, match="not a plain identifier"):
        store.write_rows("schema/meta_set", [], params={"id": "x", name: 1})


def test_falkordb_header_refuses_a_hostile_name_itself() -> None:
    """The FalkorDB client's own check, where names are written into the query text."""
    from graphmind.store.falkordb_values import params_header

    assert params_header({"ok_1": 1}) == "CYPHER `ok_1`=1 "
    for name in HOSTILE_NAMES:
        with pytest.raises(QueryParameterError):
            params_header({name: 1})


def test_reads_are_capped_timed_and_bounded(store: GraphStore) -> None:
    # 10^8 rows: cut at the limit by the server (a full fetch would not end in time)
    many = "UNWIND range(1, 10000) AS a UNWIND range(1, 10000) AS b RETURN a, b"
    result = store.run_text(many, max_rows=3, timeout=60)
    assert result.columns == ["a", "b"] and len(result.rows) == 3 and result.more
    ordered = store.run_text("UNWIND [3, 1, 2] AS x RETURN x AS y, -x AS z ORDER BY y", max_rows=2)
    assert ordered.columns == ["y", "z"] and ordered.rows == [[1, -1], [2, -2]] and ordered.more
    union = store.run_text("RETURN 1 AS n UNION ALL RETURN 2 AS n", max_rows=5)
    assert sorted(r[0] for r in union.rows) == [1, 2] and not union.more
    with pytest.raises(QueryTimeoutError, match=r"stopped the query at its timeout of 0\.5 s"):
        store.run_text(ENDLESS, max_rows=10, timeout=0.5)
    for rows in (0, MAX_READ_ROWS + 1):
        with pytest.raises(BadInputError, match=f"1 to {MAX_READ_ROWS} rows"):
            store.run_text("RETURN 1 AS one", max_rows=rows)
        with pytest.raises(BadInputError, match=f"1 to {MAX_READ_ROWS} rows"):
            store.read_capped("audit/retrieval_funnel", {}, rows)


def test_mcp_and_cypher_accept_only_the_query_s_own_parameters(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    decision, cli = asked_on_disk(tmp_path, store_env)
    tools = tools_for(tmp_path, store_env)

    rows = tools.audit("decision_chain", {"id": decision.id})["rows"]
    assert rows and {r["question"] for r in rows} == {QUESTION}
    for name in [*HOSTILE_NAMES, "chunk", "limit"]:
        with pytest.raises(BadInputError, match=r"audit query 'decision_chain' takes \$id, not"):
            tools.audit("decision_chain", {"id": decision.id, name: 1}, 3)
    with pytest.raises(BadInputError, match="must be text, a number"):
        tools.audit("decision_chain", {"id": {"nested": 1}})
    with pytest.raises(BadInputError, match="characters long"):
        tools.audit("decision_chain", {"id": "x" * (MAX_TEXT + 1)})
    for limit in (0, MAX_AUDIT_ROWS + 1, 10**12):
        with pytest.raises(BadInputError, match=f"limit must be 1 to {MAX_AUDIT_ROWS}"):
            tools.audit("decision_chain", {"id": decision.id}, limit)
    too_long = "x" * (MAX_TEXT + 1)
    for call in (
        lambda: tools.search(too_long),
        lambda: tools.ask(too_long),
        lambda: tools.feedback(decision.id, gold=too_long),
        lambda: tools.trace("d" * 201),
    ):
        with pytest.raises(BadInputError, match="characters long; the most is"):
            call()

    # graphmind cypher -p: names are plain identifiers and the query's own
    for item in ("x`=1", "a b=1", "é=1", "=1", "chunk=x", "x\\u0060=1"):
        refused = cli("cypher", "audit/decision_chain", "-p", f"id={decision.id}", "-p", item)
        assert refused.returncode == 2, (item, refused.stdout, refused.stderr)
        assert "Traceback" not in refused.stderr and "--param" in refused.stderr
    injected = cli("cypher", "audit/decision_chain", "-p", f"id={decision.id}", "-p", INJECTION)
    assert injected.returncode == 2 and "expected NAME=VALUE" in injected.stderr
    over = cli("cypher", "RETURN 1 AS one", "--limit", str(MAX_READ_ROWS + 1))
    assert over.returncode == 2 and "--limit" in over.stderr
    ok = cli("cypher", "audit/decision_chain", "-p", f"id={decision.id}", "--json")
    assert ok.returncode == 0 and QUESTION in ok.stdout


def graphmind(*args: str, env: dict[str, str], cwd: Path | None = None) -> Any:
    """``graphmind ARGS`` in a child process with ``GRAPHMIND_*`` from ``env`` only."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMIND_")}
    exe = str(Path(sys.executable).parent / "graphmind")
    return subprocess.run(
        [exe, *args], capture_output=True, text=True, env={**base, **env}, cwd=cwd, timeout=120
    )


def test_a_query_past_the_timeout_is_stopped_with_a_clear_error(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    env = {
        "GRAPHMIND_STORE": f"falkordb-lite://{tmp_path / 'graph.db'}",
        **store_env,
        "GRAPHMIND_EMBEDDER": "hash:384",
        "GRAPHMIND_QUERY_TIMEOUT": "0.5",
    }
    slow = graphmind("cypher", ENDLESS, env=env)
    assert slow.returncode == 1, slow.stderr
    assert "stopped the query at its timeout of 0.5 s (GRAPHMIND_QUERY_TIMEOUT)" in slow.stderr
    assert "Traceback" not in slow.stderr


def test_mcp_reads_never_create_a_store(tmp_path: Path) -> None:
    tools = tools_for(tmp_path, {}, model_dir=str(tmp_path / "no-models"))
    missing = tmp_path / "graph.db"
    for call in (lambda: tools.search("anything"), lambda: tools.trace("d1")):
        with pytest.raises(ConfigError, match="there is no store at"):
            call()
    with pytest.raises(ConfigError, match="there is no store at"):
        tools.audit("decision_chain", {"id": "d1"})
    report = tools.doctor()
    assert not report["ok"] and any("there is no store at" in p for p in report["problems"])
    assert not missing.exists() and not list(tmp_path.iterdir())


def test_a_password_in_the_store_uri_is_never_printed(tmp_path: Path) -> None:
    uri = f"neo4j://neo4j:{PASSWORD}@127.0.0.1:1"
    env = {"GRAPHMIND_STORE": uri, "GRAPHMIND_EMBEDDER": "hash:384"}
    for args in (["doctor"], ["doctor", "--json"], ["cypher", "RETURN 1"]):
        shown = graphmind(*args, env=env, cwd=tmp_path)
        assert shown.returncode != 0
        assert PASSWORD not in shown.stdout + shown.stderr, args
        assert "holds credentials" in shown.stdout + shown.stderr, args
    tools = GraphMindTools(lambda: load_settings(store=uri, embedder="hash:384"))
    with pytest.raises(ConfigError) as refused:
        tools.doctor()
    assert PASSWORD not in str(refused.value) and "neo4j://127.0.0.1:1" in str(refused.value)

    from graphmind.store.neo4j import Neo4jStore

    with pytest.raises(StoreUnavailableError) as unreachable:
        Neo4jStore(uri, password="x")
    assert PASSWORD not in str(unreachable.value)


def test_model_id_holds_no_credentials_or_query_string() -> None:
    from graphmind.factories import describe_llm
    from graphmind.llm.openai_provider import OpenAIProvider

    url = f"http://user:{PASSWORD}@127.0.0.1:9/v1?api_key={PASSWORD}"
    provider = OpenAIProvider(model="m", base_url=url, api_key="k")
    assert provider.model_id == "openai:m@http://127.0.0.1:9/v1"
    described = describe_llm(load_settings(llm_base_url=url, llm_model="m"))
    assert PASSWORD not in described and "http://127.0.0.1:9/v1" in described


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)")
def test_graphmind_show_never_runs_script_from_the_graph(tmp_path: Path) -> None:
    from conftest import open_falkordb

    decision, cli = asked_on_disk(tmp_path, {})  # FalkorDB Lite
    store = open_falkordb(tmp_path / "graph.db")
    try:  # a document and a passage holding a script, as a hostile corpus would
        store._execute(
            "MATCH (c:Chunk {id: $id})-[:PART_OF]->(d:Document) SET c.text = $t, d.title = $t",
            {"id": decision.citations[0].chunk_id, "t": PAYLOAD},
            write=True,
        )
    finally:
        store.close()
    page = tmp_path / "decision.html"
    shown = cli("show", decision.id, "--output", str(page))
    assert shown.returncode == 0, shown.stderr
    assert "window.pwned=1" in page.read_text(encoding="utf-8")  # the payload is on the page
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        ).stdout
    # the page's own script ran (it writes the legend); the payload stayed data
    assert "passage used" in dom
    assert "<script>window.pwned=1</script>" not in dom
