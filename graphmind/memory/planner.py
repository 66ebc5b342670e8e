"""The retrieval planner (ROZA's retrieval graph): per query type, leave out evidence
that correct decisions keep rejecting, and pick the retrieval recipe with the best
success rate.

Recipes are a small named set (``graphmind/core/recipes.py``); the planner picks the
best one with enough feedback behind it, tries a less-tried one now and then
(epsilon-greedy, seeded by the question so a run is repeatable) so the others get
support, and otherwise keeps the default. What it chose and what it excluded is recorded
on the decision's ``RETRIEVED_VIA`` edge.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphmind.core.recipes import DEFAULT_RECIPE, RECIPES, Recipe, recipe
from graphmind.store.base import GraphStore


@dataclass
class PlannerOptions:
    """ROZA's defaults: exclude above 0.7 rejection with at least 3 evaluations."""

    reject_threshold: float = 0.7
    min_support: int = 3
    explore: float = 0.1  # chance of trying the least-tried recipe


@dataclass
class ConfigStats:
    """A recipe's record on one query type."""

    config: str
    support: int
    correct: int

    @property
    def success(self) -> float:
        return self.correct / self.support if self.support else 0.0


@dataclass
class Plan:
    """The planner's choice for one question."""

    config: Recipe
    explored: bool
    stats: list[ConfigStats]


def plan_retrieval(
    store: GraphStore, query_type: str, question: str, options: PlannerOptions
) -> Plan:
    """The recipe to retrieve with for a question of ``query_type``."""
    by_name = {s.config: s for s in recipe_stats(store, query_type)}
    stats = [by_name.get(c.name, ConfigStats(c.name, 0, 0)) for c in RECIPES]
    rng = random.Random(f"{query_type}\x1f{question}")
    if by_name and rng.random() < options.explore:
        least = min(stats, key=lambda s: s.support)  # first in RECIPES order on ties
        return Plan(recipe(least.config), True, stats)
    supported = [s for s in stats if s.support >= options.min_support]
    if supported:
        best = max(supported, key=lambda s: s.success)  # the default wins ties
        return Plan(recipe(best.config), False, stats)
    return Plan(DEFAULT_RECIPE, False, stats)


def recipe_stats(store: GraphStore, query_type: str) -> list[ConfigStats]:
    """Each recipe's decisions with feedback on ``query_type``, from the counts kept on
    write (``memory/recipe_stats``)."""
    return _config_stats(store.run("memory/recipe_stats", {"query_type": query_type}))


def traversed_recipe_stats(store: GraphStore, query_type: str) -> list[ConfigStats]:
    """The same by traversal over the type's decisions (the definition)."""
    return _config_stats(store.run("memory/planner_configs", {"query_type": query_type}))


def _config_stats(rows: Sequence[dict[str, Any]]) -> list[ConfigStats]:
    return [ConfigStats(str(r["config"]), int(r["support"]), int(r["correct"])) for r in rows]


@dataclass
class Exclusion:
    """A chunk the planner leaves out, and the record behind it."""

    id: str
    support: int
    rejected: int


def excluded_evidence(
    store: GraphStore, ids: Sequence[str], query_type: str, options: PlannerOptions
) -> list[Exclusion]:
    """Of ``ids``, the chunks that correct decisions of this type keep rejecting: from the
    counts kept on write (``memory/type_stats``), by traversal for chunks whose stats are
    stale."""
    if not ids:
        return []
    params = _exclusion_params(ids, query_type, options)
    rows = store.run("memory/type_stats", params)
    found = [
        Exclusion(str(r["id"]), int(r["support"]), int(r["rejected"]))
        for r in rows
        if not r["stale"]
    ]
    stale = [str(r["id"]) for r in rows if r["stale"]]
    if stale:
        found += traversed_exclusions(store, stale, query_type, options)
    return sorted(found, key=lambda e: e.id)


def traversed_exclusions(
    store: GraphStore, ids: Sequence[str], query_type: str, options: PlannerOptions
) -> list[Exclusion]:
    """The exclusions by the backward traversal over every incoming ``EVALUATED`` edge
    (the definition, and the audit path)."""
    if not ids:
        return []
    rows = store.run("memory/planner_exclusions", _exclusion_params(ids, query_type, options))
    return [Exclusion(str(r["id"]), int(r["support"]), int(r["rejected"])) for r in rows]


def _exclusion_params(
    ids: Sequence[str], query_type: str, options: PlannerOptions
) -> dict[str, Any]:
    return {
        "ids": list(dict.fromkeys(ids)),
        "query_type": query_type,
        "threshold": float(options.reject_threshold),
        "min_support": int(options.min_support),
    }
