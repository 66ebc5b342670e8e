"""scripts/eval_explain.py --retrieval-only: whether each list ``ask`` ranks reaches the
passage that holds the manual's own answer, over a small HTML manual, no LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

FAQ = {
    "Why is the sky blue?": "Sunlight scatters off the molecules of the air, and blue light "
    "scatters the most, so the sky looks blue from every direction.",
    "How do kettles boil water?": "A heating element under the water warms it until bubbles "
    "of steam rise, which takes a few minutes for a full kettle.",
    "Where do swallows go in winter?": "Swallows fly south across deserts and seas to warm "
    "countries, where insects are plentiful, and come back in spring.",
}


def test_retrieval_only_reports_which_lists_hold_the_reference(tmp_path: Path) -> None:
    docs = tmp_path / "manual"
    docs.mkdir()
    entries = "".join(f"<h3>{q}</h3><p>{a}</p>" for q, a in FAQ.items())
    (docs / "faq.html").write_text(f"<title>FAQ</title><main><h1>FAQ</h1>{entries}</main>")
    questions = [
        {"id": f"q{i}", "question": q, "reference": a, "page": "faq"}
        for i, (q, a) in enumerate(FAQ.items())
    ]
    questions.append(
        {"id": "missing", "question": "Why do cats purr?", "reference": "Nobody here says."}
    )
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(questions))
    run = tmp_path / "run"
    script = str(REPO / "scripts" / "eval_explain.py")
    args = ["--docs", str(docs), "--questions", str(path), "--run-dir", str(run)]
    done = subprocess.run(
        [sys.executable, script, *args, "--retrieval-only"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "GRAPHMIND_EMBEDDER": "hash:384"},
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    recall = json.loads(done.stdout)
    assert json.loads((run / "recall.json").read_text()) == recall
    assert {"vector:chunk", "text:chunk", "round1"} <= set(recall)
    for values in recall.values():
        assert list(values) == ["recall@1", "recall@3", "recall@5", "recall@10"]
        ordered = list(values.values())
        assert ordered == sorted(ordered) and ordered[-1] <= 0.75  # the fourth is nowhere
    # full text finds each question's own entry: its heading has the question's words
    assert recall["text:chunk"]["recall@3"] == 0.75
    assert not (run / "results.jsonl").exists()  # no model was asked
