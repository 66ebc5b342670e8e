"""Hostile input the security tests try."""

from __future__ import annotations

# the injection: a parameter name that closes its backticks and appends a query
INJECTION = (
    "x`=1 MATCH (c:Chunk) RETURN left(c.text,60) AS question, 1 AS answer, 1 AS outcome,"
    " 1 AS model, 1 AS query_type, 1 AS round, 1 AS query, 1 AS rank, 1 AS document,"
    " 1 AS passage, 1 AS found_by, 1 AS verdict, 1 AS reason, 1 AS cited UNION ALL //"
)
