"""Pydantic output model of per-chunk extraction (its prompt is ``extraction.prompt.md``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

MAX_ENTITIES = 30
MAX_RELATIONS = 40
# A predicate made only of these words says no more than that two names stand together
# in the passage ("related to", "and", "of the"): the fast extractor's co-occurrences.
# Such facts are kept in the graph (they connect the walk) but not shown beside a passage,
# whose text already says it.
CONNECTIVES = (
    "related", "to", "and", "or", "nor", "but", "of", "the", "a", "an",
    "in", "on", "at", "with", "as", "for", "from",
)  # fmt: skip


def _text(value: Any) -> Any:
    return " ".join(value.split()) if isinstance(value, str) else value


class ExtractedEntity(BaseModel):
    """An entity named in the text."""

    name: str = Field(min_length=1, max_length=200)
    type: str = Field(default="unknown", max_length=60)
    description: str = Field(default="", max_length=500)

    _clean = field_validator("name", "type", "description", mode="before")(_text)

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) and value.strip() else "unknown"

    @field_validator("description", mode="before")
    @classmethod
    def _none_to_empty(cls, value: Any) -> Any:
        return "" if value is None else value


class ExtractedRelation(BaseModel):
    """A (subject, predicate, object) fact stated in the text."""

    subject: str = Field(min_length=1, max_length=200)
    predicate: str = Field(min_length=1, max_length=100)
    object: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=500)
    event_time: str | None = Field(default=None, max_length=60)

    _clean = field_validator("subject", "predicate", "object", "description", mode="before")(_text)

    @field_validator("description", mode="before")
    @classmethod
    def _none_to_empty(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("event_time", mode="before")
    @classmethod
    def _blank_time(cls, value: Any) -> Any:
        if value is None:
            return None
        text = str(value).strip()
        return None if text.lower() in ("", "none", "null", "unknown", "n/a") else text


class Extraction(BaseModel):
    """Entities and relations of one chunk; long lists are cut to the caps."""

    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, data: Any) -> Any:
        """A bare list of items: those with a subject are relations, the rest entities."""
        if not isinstance(data, list):
            return data
        items = [item for item in data if isinstance(item, dict)]
        return {
            "entities": [i for i in items if "subject" not in i],
            "relations": [i for i in items if "subject" in i],
        }

    @field_validator("entities", mode="before")
    @classmethod
    def _cap_entities(cls, value: Any) -> Any:
        return _valid_items(value, ExtractedEntity, MAX_ENTITIES)

    @field_validator("relations", mode="before")
    @classmethod
    def _cap_relations(cls, value: Any) -> Any:
        return _valid_items(value, ExtractedRelation, MAX_RELATIONS)


def _valid_items(value: Any, model: type[BaseModel], cap: int) -> Any:
    """Keep the first ``cap`` items that validate; a list with none valid stays as is
    so validation reports why (and the LLM layer can ask for a repair)."""
    if not isinstance(value, list):
        return value
    good = []
    for item in value:
        try:
            good.append(model.model_validate(item))
        except ValueError:
            continue
        if len(good) == cap:
            break
    return good if good or not value else value
