"""What a policy decides after a round's answer, and the protocol it follows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from graphmind.ask.models import Answer, Check
from graphmind.ask.state import AskState, Tools
from graphmind.core.decision import Candidate, Judgement


@dataclass
class Answered:
    """A round once its answer is graded: its number, its candidates, the answer call's
    conversation, the answer and its grade."""

    number: int
    found: list[Candidate]
    asked: list[dict[str, str]]
    reply: Answer
    judgement: Judgement


@dataclass
class Next:
    """A policy's decision on a round: the next hop's question ("" for none), the
    answer's check (None when it was not checked) and the round's judgement after it."""

    hop: str
    check: Check | None
    judgement: Judgement


class Policy(Protocol):
    """Decides, after a round's answer is graded, what the loop asks next and whether it
    goes on. ``plan`` runs before the round is kept, ``goes_on`` after."""

    def plan(self, tools: Tools, state: AskState, round_: Answered) -> Next:
        """The next hop, the check and the judgement of the round."""
        ...

    def goes_on(self, state: AskState, judgement: Judgement, check: Check | None, hop: str) -> bool:
        """Whether another round can pay, once the round is kept."""
        ...
