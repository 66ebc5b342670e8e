"""Client-side graph algorithms (igraph + leidenalg) for stores without GDS.

All functions take a :class:`Projection` (node ids and weighted edges, read by a named
query) and are deterministic: nodes are ordered by id and Leiden runs with a fixed seed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from graphmind.store.base import Projection

DAMPING = 0.85  # PageRank's chance of following an edge rather than jumping


@dataclass(frozen=True)
class Community:
    """A set of entities at one level; ``parent`` indexes the enclosing community in the
    list :func:`hierarchical_leiden` returns."""

    level: int
    members: tuple[str, ...]
    parent: int | None


def _graph(nodes: Sequence[str], edges: Iterable[tuple[str, str, float]]) -> Any:
    """An undirected weighted igraph graph; parallel edges are summed."""
    import igraph as ig

    index = {node: i for i, node in enumerate(nodes)}
    weights: dict[tuple[int, int], float] = defaultdict(float)
    for a, b, w in edges:
        if a in index and b in index and a != b:
            key = (min(index[a], index[b]), max(index[a], index[b]))
            weights[key] += w
    pairs = sorted(weights)
    graph = ig.Graph(n=len(nodes), edges=pairs, directed=False)
    graph.es["weight"] = [weights[p] for p in pairs]
    graph.vs["name"] = list(nodes)
    return graph


def leiden_partition(
    nodes: Sequence[str],
    edges: Iterable[tuple[str, str, float]],
    *,
    seed: int = 42,
    resolution: float = 1.0,
) -> list[list[str]]:
    """Leiden communities (modularity with a resolution), largest first, members sorted."""
    import leidenalg

    ordered = sorted(nodes)
    if not ordered:
        return []
    graph = _graph(ordered, edges)
    if graph.ecount() == 0:
        return [[n] for n in ordered]
    partition = leidenalg.find_partition(
        graph,
        leidenalg.RBConfigurationVertexPartition,
        weights="weight",
        resolution_parameter=resolution,
        seed=seed,
        n_iterations=-1,
    )
    groups = [sorted(ordered[i] for i in members) for members in partition]
    return sorted(groups, key=lambda g: (-len(g), g[0]))


def hierarchical_leiden(
    projection: Projection,
    *,
    seed: int = 42,
    resolution: float = 1.0,
    max_size: int = 50,
    max_levels: int = 3,
    top_resolution: float | None = None,
) -> list[Community]:
    """Leiden on the whole graph (level 0), then Leiden again inside every community
    larger than ``max_size`` (level 1, 2, …) until none is or ``max_levels`` is reached.
    ``top_resolution``: level 0's, when it differs (a region of a larger graph)."""
    communities: list[Community] = []
    edges = projection.edges
    frontier: list[tuple[int | None, list[str]]] = [(None, list(projection.nodes))]
    for level in range(max_levels):
        next_frontier: list[tuple[int | None, list[str]]] = []
        # each edge goes to the community holding both its ends, once per level (linear:
        # scanning every edge for every community grew with communities x edges)
        group_of = {node: i for i, (_, nodes) in enumerate(frontier) for node in nodes}
        inner: list[list[tuple[str, str, float]]] = [[] for _ in frontier]
        for edge in edges:
            a, b = group_of.get(edge[0]), group_of.get(edge[1])
            if a is not None and a == b:
                inner[a].append(edge)
        edges = [e for bucket in inner for e in bucket]  # the next level splits only these
        for (parent, nodes), sub_edges in zip(frontier, inner, strict=True):
            gamma = top_resolution if level == 0 and top_resolution is not None else resolution
            groups = leiden_partition(nodes, sub_edges, seed=seed, resolution=gamma)
            if parent is not None and len(groups) < 2:
                continue  # cannot be split further
            for group in groups:
                communities.append(Community(level, tuple(group), parent))
                if len(group) > max_size:
                    next_frontier.append((len(communities) - 1, group))
        if not next_frontier:
            break
        frontier = next_frontier
    return communities


def modularity(projection: Projection, groups: Sequence[Sequence[str]]) -> float:
    """Weighted modularity of a partition of the projection's nodes."""
    nodes = sorted(projection.nodes)
    graph = _graph(nodes, projection.edges)
    if graph.ecount() == 0:
        return 0.0
    position = {n: i for i, n in enumerate(nodes)}
    membership = [0] * len(nodes)
    for label, group in enumerate(groups):
        for node in group:
            membership[position[node]] = label
    return float(graph.modularity(membership, weights="weight"))


def pagerank(projection: Projection, *, damping: float = DAMPING) -> dict[str, float]:
    """Weighted PageRank of every node (undirected)."""
    nodes = sorted(projection.nodes)
    if not nodes:
        return {}
    graph = _graph(nodes, projection.edges)
    weights = "weight" if graph.ecount() else None
    scores = graph.pagerank(weights=weights, damping=damping, directed=False)
    return dict(zip(nodes, (float(s) for s in scores), strict=True))


def personalized_pagerank(
    projection: Projection, seeds: Iterable[str], *, damping: float = DAMPING
) -> dict[str, float]:
    """PageRank restarting at ``seeds`` (those present in the projection), evenly."""
    return weighted_personalized_pagerank(projection, dict.fromkeys(seeds, 1.0), damping=damping)


def weighted_personalized_pagerank(
    projection: Projection,
    reset: dict[str, float],
    *,
    damping: float = DAMPING,
    tolerance: float = 1e-10,
    max_iterations: int = 200,
) -> dict[str, float]:
    """PageRank restarting at the nodes of ``reset`` in proportion to their weights
    (those present in the projection with a positive weight), by power iteration on the
    undirected weighted graph; a node without edges sends its score to the restart
    nodes. Same scores as igraph's PRPACK, far faster on the small sub-graphs a question
    reads (PRPACK's set-up dominates there)."""
    import numpy as np

    nodes = sorted(projection.nodes)
    position = {n: i for i, n in enumerate(nodes)}
    restart = np.zeros(len(nodes))
    for node, weight in reset.items():
        if node in position and weight > 0:
            restart[position[node]] += weight
    if not restart.any():
        return {}
    restart /= restart.sum()
    pairs: dict[tuple[int, int], float] = defaultdict(float)
    for a, b, w in projection.edges:
        if a in position and b in position and a != b:
            pairs[(min(position[a], position[b]), max(position[a], position[b]))] += w
    ends = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
    source = np.concatenate([ends[:, 0], ends[:, 1]])
    target = np.concatenate([ends[:, 1], ends[:, 0]])
    weights = np.tile(np.fromiter(pairs.values(), dtype=float, count=len(pairs)), 2)
    strength = np.bincount(source, weights=weights, minlength=len(nodes))
    share = weights / strength[source] if len(source) else weights
    dangling = strength == 0
    scores = restart.copy()
    for _ in range(max_iterations):
        walked = np.bincount(target, weights=scores[source] * share, minlength=len(nodes))
        following = damping * (walked + scores[dangling].sum() * restart)
        following += (1.0 - damping) * restart
        done = np.abs(following - scores).sum() < tolerance
        scores = following
        if done:
            break
    return dict(zip(nodes, (float(s) for s in scores), strict=True))
