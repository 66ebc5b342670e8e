"""The synthetic MuSiQue slice and a scripted model that answers it from its passages."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import asked_question
from graphmind.eval.datasets import load_dataset
from graphmind.llm.base import Message

FIXTURES = Path(__file__).parents[1] / "fixtures" / "eval"
ANSWERS = {q.question: q.answers[0] for q in load_dataset("musique", FIXTURES).questions}


def numbered(messages: list[Message]) -> dict[int, str]:
    return {
        int(n): t
        for n, t in re.findall(r"^\[(\d+)\] \([^)]*\) (.*)$", messages[1]["content"], re.M)
    }


def responder(messages: list[Message]) -> str:
    """Uses a passage when it states the gold answer; answers when one does."""
    question = asked_question(messages).removeprefix("Question: ")
    gold = ANSWERS.get(question, "")
    found = numbered(messages)
    stating = [n for n, t in found.items() if gold and gold.lower() in t.lower()]
    if messages[0]["content"].startswith("You judge evidence"):
        verdicts = [
            {"ref": n, "verdict": "used" if n in stating else "rejected", "reason": "r"}
            for n in found
        ]
        return json.dumps({"verdicts": verdicts, "answer": gold if stating else ""})
    if messages[-1]["content"].startswith("Check your answer"):
        done = bool(json.loads(messages[-2]["content"])["answer"])
        return json.dumps({"complete": done, "missing": "" if done else "the answer"})
    return json.dumps({"answer": gold, "citations": stating, "abstain": not stating})
