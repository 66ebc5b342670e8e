"""Read: the round's answer call, with the passages it rests on."""

from __future__ import annotations

from graphmind.ask.models import Answer
from graphmind.ask.options import ANSWER_MAX_TOKENS
from graphmind.ask.prompts import answer_messages, example_copied_messages, example_text, next_turn
from graphmind.ask.rules.evidence import naming, recited, says
from graphmind.ask.rules.hops import OWNER_TAIL
from graphmind.ask.rules.question import (
    TEMPORAL,
    off_kind,
    question_entities,
    restates_question,
)
from graphmind.ask.rules.text import copied
from graphmind.ask.state import AskState, Conversation, Tools
from graphmind.core.decision import Candidate


def read(
    tools: Tools, state: AskState, found: list[Candidate]
) -> tuple[list[dict[str, str]], Answer]:
    """The answer call: a short answer and the passages it rests on. A next hop's
    round asks the hop's own question (self-ask), with no notes, over the passages
    that name the bridge (or, for the first hop, what it names); when the answer is
    only the name the hop asks about ("Who was married to Laura Knight?" answered
    "Laura Knight"), it is asked once more with a note saying so. A later round of the
    question itself gets the check's missing fact, and that note when the last answer
    was a name from the question."""
    cues = [f"Still needed: {c.missing}" for c in state.checks if c and c.missing][-1:]
    last = state.rounds[-1].judgement.draft_answer if state.rounds else ""
    if not state.hopping and restates_question(state.question, last):
        cues.append(_asks_about(last))  # "Avery Brundage" to "... Avery Brundage is in?"
    if state.bridging:
        shown = naming(found, [last])
    elif state.hopping:  # the first hop: passages on what it names ("Anna Benson's")
        named = question_entities(state.asking)
        shown = naming(found, [OWNER_TAIL.sub("", e) for e in named])
    else:
        shown = found
    asked, reply = _answer(tools, state, shown, [] if state.hopping else cues)
    if state.bridging and restates_question(state.asking, reply.answer):
        asked, reply = _answer(tools, state, shown, [_asks_about(last)], notes_last=True)
    state.conversations[len(state.rounds) + 1] = Conversation(
        asked, reply.model_copy(deep=True), shown
    )
    index = {c.id: n for n, c in enumerate(found, start=1)}
    reply.citations = [index[shown[n - 1].id] for n in reply.citations if 1 <= n <= len(shown)]
    if state.hopping:
        reply.citations = recited(reply, found)
    return asked, reply


def _answer(
    tools: Tools,
    state: AskState,
    found: list[Candidate],
    cues: list[str],
    *,
    notes_last: bool = False,
) -> tuple[list[dict[str, str]], Answer]:
    """One answer call for the question the round asks (``notes_last``: the cues
    after the passages); asked again, as its next turn, when the answer is the
    prompt's worked example's. The conversation asked is returned (a check goes on
    from it)."""
    asked = answer_messages(
        state.asking,
        found,
        cues,
        "",
        temporal=bool(TEMPORAL.search(state.asking)) if state.hopping else state.temporal,
        budget_tokens=tools.options.context_tokens,
        notes_last=notes_last,
    )

    def ask(messages: list[dict[str, str]]) -> Answer:
        with state.timed("llm"):
            return tools.llm.structured("answer", messages, Answer, max_tokens=ANSWER_MAX_TOKENS)

    reply = ask(asked)
    if copies_example(reply.answer, found, "answer"):
        asked = example_copied_messages(asked, reply)
        reply = ask(asked)
    note = off_kind(state.asking, reply.answer)
    if note:  # "Disney" to "Are Aladdin and Song of the South by the same company?"
        asked = next_turn(asked, reply, note)
        reply = ask(asked)
    return asked, reply


def copies_example(answer: str, found: list[Candidate], prompt_name: str) -> bool:
    """Whether the answer comes from the prompt's worked example and from no passage: a
    small model answers "Graz", the example's answer, to "Where was the father of Prince
    Boris of Leiningen born?" with every gold passage in front of it."""
    return copied(answer, example_text(prompt_name), [says(c) for c in found])


def _asks_about(name: str) -> str:
    """The note for an answer that only repeats a name the question asks about."""
    return f"The answer is not {name}: the question asks about {name}."
