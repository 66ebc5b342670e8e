"""A rule-based stand-in for the extraction LLM: zero latency, deterministic.

Entities are runs of capitalised words; relations join consecutive entities of a
sentence with the words between them as the predicate. Used by tests and benchmarks
through a scripted LLM provider; real builds use a real model.
"""

from __future__ import annotations

import json
import re
from itertools import pairwise

from graphmind.core.text import split_sentences

_NAME = re.compile(
    r"\b(?:[A-Z][\w'-]*|[0-9]{3,4})(?:[ \t]+(?:of[ \t]+|the[ \t]+|de[ \t]+)?[A-Z][\w'-]*)*"
)
_STOP = {
    "The",
    "A",
    "An",
    "He",
    "She",
    "It",
    "They",
    "His",
    "Her",
    "In",
    "On",
    "At",
    "This",
    "That",
    "There",
    "Passage",
    "We",
    "I",
    "But",
    "And",
    "As",
    "After",
    "Before",
}
MAX_ENTITIES = 8
MAX_RELATIONS = 8


def heuristic_extraction(passage: str) -> dict[str, list[dict[str, str | None]]]:
    """Entities and relations found by the rules, in the extraction output shape."""
    entities: dict[str, dict[str, str | None]] = {}
    relations: list[dict[str, str | None]] = []
    for sentence in split_sentences(passage):
        names = [m for m in _NAME.finditer(sentence) if m.group(0) not in _STOP]
        for match in names:
            name = match.group(0)
            if len(entities) < MAX_ENTITIES and name not in entities:
                kind = "date" if name.isdigit() else "unknown"
                entities[name] = {"name": name, "type": kind, "description": sentence[:120]}
        for left, right in pairwise(names):
            between = sentence[left.end() : right.start()].strip(" ,;:").lower()
            words = re.findall(r"[a-z]+", between)[:4]
            if words and len(relations) < MAX_RELATIONS:
                time = right.group(0) if right.group(0).isdigit() else None
                relations.append(
                    {
                        "subject": left.group(0),
                        "predicate": " ".join(words),
                        "object": right.group(0),
                        "description": sentence[:120],
                        "event_time": time,
                    }
                )
    return {"entities": list(entities.values()), "relations": relations}


def heuristic_response(messages: list[dict[str, str]]) -> str:
    """Answer an extraction request (the last user message holds the passage) as JSON."""
    passage = messages[-1]["content"].split("\n", 1)[-1]
    return json.dumps(heuristic_extraction(passage))
