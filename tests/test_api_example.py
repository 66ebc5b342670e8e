"""The Python API example (docs/api.md, linked from the README) runs as written (against a
test LLM endpoint)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openai_server import FakeServer, Reply, completion_body

API_DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"

# what the test endpoint answers, by the schema each call asks for
ANSWERS = {
    "Extraction": {
        "entities": [{"name": "Lise Meitner", "type": "person"}, {"name": "Vienna"}],
        "relations": [{"subject": "Lise Meitner", "predicate": "born in", "object": "Vienna"}],
    },
    "CommunityReport": {"title": "Lise Meitner", "summary": "A physicist born in Vienna."},
    "Answer": {"answer": "Vienna", "citations": [1], "abstain": False},
    "Check": {"complete": True, "missing": "", "query": ""},
    "FullAnswer": {"sentences": [{"text": "Lise Meitner was born in Vienna.", "citations": [1]}]},
}


def api_example() -> str:
    """docs/api.md's first ```python block."""
    match = re.search(r"```python\n(.*?)```", API_DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert match, "no python block in docs/api.md"
    return match.group(1)


def test_the_python_api_example_runs(tmp_path: Path, serve: Callable[..., FakeServer]) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        name = body.get("response_format", {}).get("json_schema", {}).get("name", "")
        return 200, {}, completion_body(json.dumps(ANSWERS[name]))

    server = serve(reply)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "meitner.md").write_text("Lise Meitner was born in Vienna in 1878.\n")
    (docs / "old.md").write_text("An old note about Otto Hahn in Berlin.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMIND_")}
    env |= {
        "GRAPHMIND_EMBEDDER": "hash:384",
        "GRAPHMIND_LLM_BASE_URL": server.base_url,
        "GRAPHMIND_LLM_MODEL": "test-model",
    }
    result = subprocess.run(
        [sys.executable, "-c", api_example()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "2 new; []"
    assert lines[1].startswith("Vienna ") and "'meitner'" in lines[1]
    assert lines[2] == "Lise Meitner was born in Vienna. [1]"  # the full answer, cited
    assert lines[3] == "1 rounds read back from the graph"
    assert "meitner" in lines[4].lower()
    assert re.fullmatch(r"1 chunks and \d+ entities would go", lines[-1])
