"""Error classes: each carries its exit code, the README's table lists them, and the newer
classes stay catchable as the class their raise sites used before."""

from __future__ import annotations

import re
from pathlib import Path

from graphmind.core.errors import (
    ERROR_CLASSES,
    BadInputError,
    ConfigError,
    EmbedderError,
    EmptyStoreError,
    InterruptedBuildError,
    LLMError,
    ModelError,
    NotFoundError,
    StoreError,
    StoreInUseError,
    StoreUnavailableError,
)

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_table_lists_every_class_with_its_code() -> None:
    section = README.read_text(encoding="utf-8").split("## Exit codes", 1)[1].split("\n## ")[0]
    listed: dict[str, int] = {}
    for code, classes in re.findall(r"^\| (\d+) \| ([^|]*) \|", section, re.MULTILINE):
        for name in re.findall(r"`(\w+)`", classes):
            listed[name] = int(code)
    for cls in ERROR_CLASSES:
        assert listed.get(cls.__name__) == cls.exit_code, cls.__name__


def test_new_classes_keep_their_old_bases() -> None:
    for cls in (BadInputError, NotFoundError, EmptyStoreError, InterruptedBuildError):
        assert issubclass(cls, ConfigError)
    assert issubclass(StoreInUseError, StoreUnavailableError)
    assert issubclass(StoreUnavailableError, StoreError)
    assert issubclass(EmbedderError, ConfigError) and issubclass(EmbedderError, ModelError)
    assert issubclass(LLMError, ModelError)
    codes = {c.exit_code for c in (NotFoundError, EmptyStoreError, StoreUnavailableError)}
    assert len(codes) == 3 and EmbedderError.exit_code == LLMError.exit_code == 6
