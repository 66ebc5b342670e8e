"""What one question reads from the memory of earlier answers, by mode.

``off``: nothing (the plain loop). ``profiles``: the reasoning graph, i.e. evidence
profiles beside the candidates. ``full``: the profiles plus the retrieval graph, i.e.
the planner's exclusions and configuration choice for the question's type. The
question is assigned a query type in every mode, so the retrieval graph grows even
while it is not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from graphmind.core.recipes import DEFAULT_RECIPE, Recipe
from graphmind.memory.planner import Plan, PlannerOptions, excluded_evidence, plan_retrieval
from graphmind.memory.profiles import (
    EvidenceProfile,
    ProfileOptions,
    evidence_profiles,
    within_budget,
)
from graphmind.memory.querytypes import DEFAULT_THRESHOLD, QueryTypeMatch, assign_query_type
from graphmind.memory.stats import ensure_stats
from graphmind.store.base import GraphStore

MemoryMode = Literal["off", "profiles", "full"]
MEMORY_MODES: tuple[MemoryMode, ...] = get_args(MemoryMode)


@dataclass
class MemoryOptions:
    """The memory's knobs (ROZA's defaults)."""

    mode: MemoryMode = "full"
    profiles: ProfileOptions = field(default_factory=ProfileOptions)
    planner: PlannerOptions = field(default_factory=PlannerOptions)
    type_threshold: float = DEFAULT_THRESHOLD


class MemorySession:
    """The memory as one question sees it; keeps what it excluded and profiled."""

    def __init__(self, store: GraphStore, options: MemoryOptions) -> None:
        self.store = store
        self.options = options
        self.query_type: QueryTypeMatch | None = None
        self.plan = Plan(DEFAULT_RECIPE, False, [])
        self.excluded: dict[str, None] = {}  # ordered set of excluded chunk ids
        self._profiles: dict[str, EvidenceProfile | None] = {}

    @property
    def mode(self) -> MemoryMode:
        return self.options.mode

    @property
    def config(self) -> Recipe:
        """The retrieval recipe for this question (the default unless the planner chose)."""
        return self.plan.config

    def start(self, question: str, vector: Sequence[float]) -> None:
        """Assign the question's type; in full mode, plan its retrieval. (A store written
        before the evidence stats existed gets them built first, once.)"""
        ensure_stats(self.store)
        self.query_type = assign_query_type(
            self.store, question, vector, self.options.type_threshold
        )
        if self.mode == "full" and not self.query_type.new:
            self.plan = plan_retrieval(
                self.store, self.query_type.id, question, self.options.planner
            )

    def exclude(self, ids: Sequence[str]) -> set[str]:
        """Full mode: those of ``ids`` the planner leaves out for this question's type."""
        if self.mode != "full" or self.query_type is None or self.query_type.new:
            return set()
        found = excluded_evidence(self.store, ids, self.query_type.id, self.options.planner)
        for e in found:
            self.excluded.setdefault(e.id, None)
        return {e.id for e in found}

    def profiles(self, ids: Sequence[str]) -> dict[str, str]:
        """Profiles and full modes: rendered profiles for ``ids``, within the budget."""
        if self.mode == "off":
            return {}
        todo = [i for i in dict.fromkeys(ids) if i not in self._profiles]
        if todo:
            found = evidence_profiles(self.store, todo, self.options.profiles)
            for i in todo:
                self._profiles[i] = found.get(i)
        known = {i: p for i in ids if (p := self._profiles.get(i)) is not None}
        chosen = within_budget(known, self.options.profiles.budget_tokens)
        return {i: p.text for i, p in chosen.items()}
