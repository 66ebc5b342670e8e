"""Retrieval recipes: which retrievers run for a question and how many candidates it gets.

The ask loop runs a recipe; the planner (memory) picks one by name per query type and
records it on the decision's ``RETRIEVED_VIA`` edge. The recipes and the names of the
retrievers live here, below both; the retrievers themselves are in
``graphmind/ask/retrievers/``, one module each, registered by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CHUNK = "chunk"  # chunk vectors
TEXT = "text"  # chunk full text (BM25)
TRIPLET = "triplet"  # triplet vectors, through the chunks that state them
COMMUNITY = "community"  # community summaries, through their chunks
EPISODE = "episode"  # episode summaries, through their chunks
PPR = "ppr"  # personalized PageRank from the entities the query names
GRAPH = "graph"  # personalized PageRank from the nearest facts over entities and passages


@dataclass(frozen=True)
class Recipe:
    """One way to retrieve: which retrievers run, and how many candidates (a share of the
    loop's k) are judged."""

    name: str
    k_share: float = 1.0
    only: tuple[str, ...] | None = None  # the retrievers that run; None: every registered one
    skip: tuple[str, ...] = ()  # retrievers left out

    def runs(self, retriever: str) -> bool:
        """Whether the retriever named ``retriever`` runs under this recipe."""
        return (self.only is None or retriever in self.only) and retriever not in self.skip

    def k(self, k: int) -> int:
        """Candidates to judge under this recipe when the loop's k is ``k``."""
        return max(1, round(k * self.k_share))

    def filters(self, k: int, retrievers: Sequence[str]) -> str:
        """The recipe spelled out for the RETRIEVED_VIA edge; ``retrievers`` are the
        registered names, in their order."""
        layers = [r for r in retrievers if r != PPR and self.runs(r)]
        return (
            f"config={self.name}; k={self.k(k)}; ppr={'on' if self.runs(PPR) else 'off'}; "
            f"layers={','.join(layers)}"
        )


DEFAULT_RECIPE = Recipe("default")
RECIPES: tuple[Recipe, ...] = (
    DEFAULT_RECIPE,
    Recipe("narrow", k_share=0.5),
    Recipe("no-ppr", skip=(PPR,)),
    Recipe("chunks-only", only=(CHUNK, TEXT)),
)


def recipe(name: str) -> Recipe:
    """The recipe called ``name``; the default for a name no longer known."""
    return next((r for r in RECIPES if r.name == name), DEFAULT_RECIPE)
