"""Attribution of the full answer's sentences: each cites the passages that state it."""

from __future__ import annotations

import pytest

from graphmind.ask.rules.attribution import Attributed, attribute, joined, unnarrated
from graphmind.core.text import whole_sentences

FREEZE = (
    "The freeze tool converts Python byte code to C arrays, so a C compiler can embed "
    "your modules into a new program linked with the standard modules."
)
CLOSE = (
    "Running sys.stdout.close() marks the Python-level file object as closed but does "
    "not close the associated C file descriptor."
)
BINARY = "Python 3 returns the integer value for the byte you index on."
PASSAGES = [BINARY, FREEZE, CLOSE]


def test_a_sentence_citing_the_wrong_number_cites_the_passage_that_states_it() -> None:
    sentence = "The freeze tool converts Python byte code to C arrays for a C compiler."
    assert attribute([(sentence, [1])], PASSAGES) == [Attributed(sentence, [2])]


def test_a_cited_passage_that_shares_some_words_gives_way_to_one_that_states_it() -> None:
    copied = "The freeze tool converts Python byte code to C arrays with a C compiler."
    partial = "Python byte code and a C compiler: the tool converts."  # 7 of its 9 content words
    assert attribute([(copied, [1])], [partial, FREEZE]) == [Attributed(copied, [2])]
    assert attribute([(copied, [1])], [partial, BINARY]) == [Attributed(copied, [1])]


def test_a_sentence_citing_every_passage_keeps_the_one_that_states_it() -> None:
    sentence = "Closing sys.stdout marks the file object closed, not the C file descriptor."
    assert attribute([(sentence, [1, 2, 3])], PASSAGES) == [Attributed(sentence, [3])]


def test_several_sentences_in_one_are_split_and_each_cites_its_own_passage() -> None:
    first = "The freeze tool converts byte code to C arrays and embeds your modules."
    second = "Closing sys.stdout does not close the C file descriptor."
    assert attribute([(f"{first} {second}", [2, 3])], PASSAGES) == [
        Attributed(first, [2]),
        Attributed(second, [3]),
    ]


def test_a_sentence_two_passages_state_together_cites_both() -> None:
    sentence = (
        "The freeze tool converts byte code to C arrays, while sys.stdout.close() "
        "leaves the C file descriptor open."
    )
    assert attribute([(sentence, [2, 3])], PASSAGES) == [Attributed(sentence, [2, 3])]


def test_a_sentence_no_passage_states_is_left_out() -> None:
    made_up = "Lise Meitner received the Nobel Prize in Chemistry for nuclear fission."
    kept = "Python 3 returns the integer value of the indexed byte."
    assert attribute([(f"{made_up} {kept}", [1])], PASSAGES) == [Attributed(kept, [1])]


def test_a_sentence_that_only_announces_what_follows_is_left_out() -> None:
    """The 1.5B copies a passage's "Here's a trivial example:" without the example."""
    kept = "The freeze tool converts Python byte code to C arrays."
    for announcing in ("Here's a trivial example:", "The freeze tool converts it as follows: "):
        assert attribute([(f"{kept} {announcing}", [2])], PASSAGES) == [Attributed(kept, [2])]


def test_a_short_sentence_keeps_the_citations_it_was_given() -> None:
    assert attribute([("Use freeze.", [2, 9])], PASSAGES) == [Attributed("Use freeze.", [2])]
    assert attribute([("Use freeze.", [9])], PASSAGES) == []  # no shown passage cited


@pytest.mark.parametrize(
    ("text", "limit", "kept"),
    [
        ("It converts code. It scans. It is", 33, "It converts code. It scans."),
        ("It converts code and works by scanning your source", 30, "It converts code and works…"),
        ("It converts code. It scans.", 27, "It converts code. It scans."),
        ("Short, and under the limit", 400, "Short, and under the limit"),
    ],
)
def test_a_sentence_stopped_at_its_bound_loses_its_unfinished_end(
    text: str, limit: int, kept: str
) -> None:
    assert whole_sentences(text, limit) == kept


@pytest.mark.parametrize(
    ("said", "sentence"),
    [
        (
            "The passage states that closing stdout keeps its descriptor.",
            "Closing stdout keeps its descriptor.",
        ),
        ("These passages [2, 3] explain that stdout is special.", "Stdout is special."),
        ("The full answer is that dir() lists them.", "dir() lists them."),
        ("The passage is about stdout.", "The passage is about stdout."),  # says no "that"
        ("Passages say little.", "Passages say little."),
    ],
)
def test_a_sentence_that_narrates_the_passage_loses_the_narration(said: str, sentence: str) -> None:
    assert unnarrated(said) == sentence


def test_a_sentence_the_model_cut_in_two_is_joined_again() -> None:
    written = [
        ("Still, don't be unduly wary of floating-point!", [1]),
        ("The errors in Python float operations,", [2]),
        ("are inherited from the floating-point hardware.", [3]),
        ("numbers are stored in binary.", [1]),  # after a whole sentence: kept apart
        ("", [4]),
    ]
    assert joined(written) == [
        ("Still, don't be unduly wary of floating-point!", [1]),
        (
            "The errors in Python float operations, are inherited from the floating-point "
            "hardware.",
            [2, 3],
        ),
        ("numbers are stored in binary.", [1]),
    ]
