"""Extracted names a passage does not hold are left out (graphmind.extract.grounding)."""

from __future__ import annotations

from graphmind.extract.grounding import ground, holds, words
from graphmind.extract.models import Extraction

PASSAGE = (
    "Payment on Demand\nPayment on Demand is a 1951 drama film directed by Curtis "
    "Bernhardt and starring Bette Davis and Barry Sullivan."
)


def test_a_name_is_held_when_half_its_words_are_the_passages() -> None:
    known = words(PASSAGE)
    assert holds(known, "Curtis Bernhardt") and holds(known, "Bette Davis and Barry Sullivan")
    assert holds(known, "The Bernhardts")  # a plural, and the article aside
    assert holds(known, "Curtis Bernhardt (director)")  # two of its three words
    assert not holds(known, "Warsaw") and not holds(known, "Nobel Prize in Physics")
    assert holds(known, "1951") and not holds(known, "1867")


def test_ground_drops_the_example_copied_into_a_passage() -> None:
    made = Extraction.model_validate(
        {
            "entities": [
                {"name": "Payment on Demand", "type": "work"},
                {"name": "Warsaw", "type": "location"},
            ],
            "relations": [
                {"subject": "Payment on Demand", "predicate": "directed by",
                 "object": "Curtis Bernhardt", "event_time": "1951"},
                {"subject": "Payment on Demand", "predicate": "born in",
                 "object": "Warsaw", "event_time": "1867"},
                {"subject": "Bette Davis", "predicate": "starred in",
                 "object": "Payment on Demand", "event_time": "1903"},
            ],
        }
    )  # fmt: skip
    kept = ground(made, PASSAGE)
    assert [e.name for e in kept.entities] == ["Payment on Demand"]
    assert [(r.predicate, r.event_time) for r in kept.relations] == [
        ("directed by", "1951"),
        ("starred in", None),  # the passage does not hold the year
    ]
