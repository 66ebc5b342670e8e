"""The query registry: named files, per-backend overrides, template slots from schema constants."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmind.core.errors import QueryNotFoundError, QueryParameterError
from graphmind.store.registry import QueryRegistry, check_parameters, default_root, parameters


def make_root(tmp_path: Path) -> Path:
    root = tmp_path / "cypher"
    (root / "x").mkdir(parents=True)
    (root / "neo4j" / "x").mkdir(parents=True)
    (root / "falkordb" / "x").mkdir(parents=True)
    (root / "x" / "shared.cypher").write_text("MATCH (n:{{label}}) RETURN count(n) AS c")
    (root / "x" / "vec.cypher").write_text("RETURN {{VEC}}($v) AS v")
    (root / "neo4j" / "x" / "shared.cypher").write_text("// neo4j\nMATCH (n:{{label}}) RETURN 1")
    (root / "falkordb" / "x" / "only_falkor.cypher").write_text("RETURN 2")
    return root


def test_override_replaces_shared_file_on_its_backend_only(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    neo, falkor = QueryRegistry("neo4j", [root]), QueryRegistry("falkordb", [root])
    assert neo.render("x/shared", label="Chunk").endswith("RETURN 1")
    assert falkor.render("x/shared", label="Chunk") == "MATCH (n:Chunk) RETURN count(n) AS c"
    assert neo.names() == ["x/shared", "x/vec"]
    assert falkor.names() == ["x/only_falkor", "x/shared", "x/vec"]


def test_missing_query_fails_loudly(tmp_path: Path) -> None:
    registry = QueryRegistry("neo4j", [make_root(tmp_path)])
    with pytest.raises(QueryNotFoundError, match="x/only_falkor"):
        registry.source("x/only_falkor")
    with pytest.raises(QueryNotFoundError, match="no query named 'nope'"):
        QueryRegistry("falkordb").render("nope")


def test_slots_accept_only_schema_names(tmp_path: Path) -> None:
    registry = QueryRegistry("falkordb", [make_root(tmp_path)])
    with pytest.raises(QueryParameterError, match="not an allowed label"):
        registry.render("x/shared", label="Chunk) DETACH DELETE (m")
    with pytest.raises(QueryParameterError, match="needs template slot"):
        registry.render("x/shared")
    with pytest.raises(QueryParameterError, match="not a template slot"):
        registry.render("x/shared", label="Chunk", other="Chunk")


def test_vector_macro_is_dialect_specific(tmp_path: Path) -> None:
    root = make_root(tmp_path)
    assert QueryRegistry("falkordb", [root]).render("x/vec") == "RETURN vecf32($v) AS v"
    assert QueryRegistry("neo4j", [root]).render("x/vec") == "RETURN ($v) AS v"


def test_parameters_are_checked_before_sending() -> None:
    text = "// $ignored in a comment\nMATCH (c {id: $id}) WHERE c.x > $min RETURN c"
    assert parameters(text) == {"id", "min"}
    check_parameters("q", text, {"id", "min", "extra"})
    with pytest.raises(QueryParameterError, match=r"\$min"):
        check_parameters("q", text, {"id"})


def test_every_packaged_query_renders_on_both_backends() -> None:
    for backend in ("neo4j", "falkordb"):
        registry = QueryRegistry(backend, [default_root()])  # type: ignore[arg-type]
        names = registry.names()
        assert "store/vector_search" in names and "schema/meta_get" in names
        for name in names:
            assert "{{" not in registry.sample(name)
