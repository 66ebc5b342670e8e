"""The graph schema as code constants: labels, relationship types, index names.

Only these names may be substituted into query templates; every value is a parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEMA_VERSION = 1
META_ID = "graphmind"
GRAPH_NAME = "graphmind"

# Every node label carries a unique ``id``.
NODE_LABELS: tuple[str, ...] = (
    "Document",
    "Chunk",
    "Entity",
    "Triplet",
    "Community",
    "Episode",
    "Agent",
    "Decision",
    "Step",
    "Query",
    "QueryType",
    "EvidenceStats",
    "GraphMindMeta",
    "Pending",
)

REL_TYPES: tuple[str, ...] = (
    "PART_OF",
    "NEXT",
    "MENTIONED_IN",
    "SUBJECT",
    "OBJECT",
    "RELATED",
    "SAME_AS",
    "SUMMARY_FOR",
    "PARENT",
    "COVERS",
    "DECIDED",
    "EVALUATED",
    "RETRIEVED_VIA",
    "OF_TYPE",
    "HAS_STEP",
    "RETRIEVED",
    "CITED",
    "HAS_STATS",
    "TYPE_STATS",
)

# Node labels whose ``embedding`` property is vector-indexed (one shared vector space; a
# QueryType's is its centroid, the mean embedding of its questions).
VECTOR_LABELS: tuple[str, ...] = (
    "Chunk",
    "Triplet",
    "Entity",
    "Community",
    "Episode",
    "QueryType",
)


@dataclass(frozen=True)
class PropertyIndex:
    """An index (full-text, or exact-match) over one property of one label."""

    name: str
    label: str
    property: str


FULLTEXT_INDEXES: tuple[PropertyIndex, ...] = (
    PropertyIndex("chunk_text", "Chunk", "text"),
    PropertyIndex("entity_name", "Entity", "name"),
)


def snake(label: str) -> str:
    """``QueryType`` -> ``query_type``."""
    out = [("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(label)]
    return "".join(out)


def constraint_name(label: str) -> str:
    """Neo4j name of the uniqueness constraint on ``label.id``."""
    return f"{snake(label)}_id"


def vector_index_name(label: str) -> str:
    """Neo4j name of the vector index on ``label.embedding``."""
    return f"{snake(label)}_embedding"


def fulltext_index(label: str) -> PropertyIndex:
    """The full-text index of ``label``; KeyError-like ValueError when it has none."""
    for index in FULLTEXT_INDEXES:
        if index.label == label:
            return index
    raise ValueError(f"label {label!r} has no full-text index")


# Exact-match indexes besides the ``id`` ones.
PROPERTY_INDEXES: tuple[PropertyIndex, ...] = (
    # a re-build looks documents up by source to replace a changed one
    PropertyIndex("document_source", "Document", "source"),
    # the planner reads the decisions of one query type
    PropertyIndex("decision_query_type", "Decision", "query_type"),
)

INDEX_NAMES: tuple[str, ...] = (
    *(constraint_name(label) for label in NODE_LABELS),
    *(index.name for index in PROPERTY_INDEXES),
    *(vector_index_name(label) for label in VECTOR_LABELS),
    *(index.name for index in FULLTEXT_INDEXES),
)

# Template placeholders and the values each may take. The first value is the one the
# Neo4j lint renders templates with.
PLACEHOLDER_DOMAINS: dict[str, tuple[str, ...]] = {
    "label": NODE_LABELS,
    "vector_label": VECTOR_LABELS,
    "text_label": tuple(index.label for index in FULLTEXT_INDEXES),
    "text_property": tuple(dict.fromkeys(index.property for index in FULLTEXT_INDEXES)),
    "property": tuple(dict.fromkeys(index.property for index in PROPERTY_INDEXES)),
    "rel": REL_TYPES,
    "index": INDEX_NAMES,
}
