"""One settings model: graphmind.toml sections and GRAPHMIND_ variables reach the engine's
options, and the command line writes no default or choice list of its own."""

from __future__ import annotations

import ast
import re
import tomllib
import typing
from dataclasses import asdict, fields, is_dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from graphmind import api
from graphmind.ask.options import AskOptions
from graphmind.cli import main
from graphmind.config import SECTIONS, load_settings
from graphmind.core.errors import ConfigError
from graphmind.eval.options import EvalOptions, eval_options

REPO = Path(__file__).resolve().parents[1]
TOML = """
[build]
extract = "none"
chunk_overlap = 16
[build.load]
include = ["*.md"]
[ask]
k = 5
[ask.memory]
mode = "off"
[ask.memory.planner]
explore = 0.0
[communities]
max_size = 7
summarize = false
[eval]
seed = 4
"""


def test_a_section_and_an_environment_variable_reach_the_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graphmind.toml").write_text(TOML)
    monkeypatch.setenv("GRAPHMIND_ASK__MAX_ROUNDS", "4")
    monkeypatch.setenv("GRAPHMIND_ASK__RETRIEVE__PER_LIST", "30")
    monkeypatch.setenv("GRAPHMIND_BUILD__CHUNK_OVERLAP", "24")  # the environment wins
    monkeypatch.setenv("GRAPHMIND_EVAL__LIMIT", "3")
    monkeypatch.setenv("GRAPHMIND_PRUNE__KEEP", "9")
    settings = load_settings()
    assert settings.build.extract == "none" and settings.build.chunk_overlap == 24
    assert tuple(settings.build.load.include) == ("*.md",)
    assert (settings.ask.k, settings.ask.max_rounds, settings.ask.memory.mode) == (5, 4, "off")
    assert settings.ask.retrieve.per_list == 30 and settings.ask.memory.planner.explore == 0.0
    assert settings.ask.extra == AskOptions().extra  # untouched knobs keep the dataclass default
    assert settings.communities.max_size == 7 and not settings.communities.summarize
    assert settings.prune.keep == 9
    options = eval_options(settings, "musique", k=2)
    assert (options.seed, options.limit, options.k) == (4, 3, 2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[ask]\nkk = 3\n", r"\[ask\]: unknown setting\(s\) kk"),
        ("[ask.memory]\nmod = 'off'\n", r"\[ask\.memory\]: unknown setting\(s\) mod"),
        ("[build]\nextract = 'maybe'\n", "build.extract"),
        ("[eval]\nsed = 1\n", r"\[eval\]: unknown setting\(s\) sed"),
    ],
)
def test_a_bad_section_value_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graphmind.toml").write_text(text)
    with pytest.raises(ConfigError, match=message):
        eval_options(load_settings(), "musique")


def test_the_command_line_falls_back_to_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fake(name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> Any:
            seen[name] = (args, kwargs)
            raise click.exceptions.Exit(0)

        return record

    for name in ("build", "ask", "communities"):
        monkeypatch.setattr(api, name, fake(name))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graphmind.toml").write_text(TOML)
    runner = CliRunner()
    assert runner.invoke(main, ["build", "docs"]).exit_code == 0
    options, community = seen["build"][0][1], seen["build"][1]["community_options"]
    assert (options.extract, options.chunk_overlap) == ("none", 16)
    assert tuple(options.load.include) == ("*.md",)
    assert community.max_size == 7
    runner.invoke(main, ["build", "docs", "--extract", "llm", "--max-community-size", "9"])
    options, community = seen["build"][0][1], seen["build"][1]["community_options"]
    assert options.extract == "llm" and options.chunk_overlap == 16 and community.max_size == 9
    runner.invoke(main, ["ask", "why?", "--max-rounds", "3"])
    asked = seen["ask"][0][1]
    assert (asked.k, asked.max_rounds, asked.memory.mode) == (5, 3, "off")
    assert asked.memory.planner.explore == 0.0  # the rest of [ask.memory] is kept
    runner.invoke(main, ["communities", "--summaries"])
    found = seen["communities"][0][0]
    assert found.max_size == 7 and found.summarize


def _option_calls(tree: ast.AST) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("option", "argument")
    ]


def test_no_command_line_option_writes_a_default_or_a_choice_list() -> None:
    """Mechanical check of graphmind/cli*.py: a click option's ``default=`` is never a
    literal value (only None, False for a plain flag, or a reference), and no
    ``click.Choice`` is given a literal list: both come from the options dataclasses."""
    for path in (REPO / "graphmind").glob("cli*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call in _option_calls(tree):
            for keyword in call.keywords:
                if keyword.arg == "default" and isinstance(keyword.value, ast.Constant):
                    assert keyword.value.value in (None, False), (
                        f"{path.name}:{call.lineno}: literal default {keyword.value.value!r}"
                    )
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "Choice"
            ):
                assert not isinstance(node.args[0], (ast.List, ast.Tuple)), (
                    f"{path.name}:{node.lineno}: literal choice list"
                )


def _literal_args(kind: Any) -> tuple[Any, ...]:
    if typing.get_origin(kind) is tuple:
        kind = typing.get_args(kind)[0]
    return typing.get_args(kind)


def test_every_knob_option_defaults_to_the_settings() -> None:
    """At run time: an option of a command that sets a knob has no default of its own
    (None: the settings apply), and its choices are its field's Literal values."""
    from graphmind.communities.pipeline import CommunityOptions
    from graphmind.ingest.options import BuildOptions

    knobs = {"build", "ask", "communities", "prune", "eval"}
    for name in knobs:
        command = main.commands[name]
        for param in command.params:
            if not isinstance(param, click.Option) or param.name in ("as_json", "strict"):
                continue
            unset = param.default in (None, ()) or "UNSET" in repr(param.default)
            if param.is_flag and not param.secondary_opts:  # --trace, --dry-run, ...
                assert unset or param.default is False, param.name
                continue
            assert unset, f"{name} --{param.name}: {param.default!r}"
    choices = main.commands["build"].params
    extract = next(p for p in choices if p.name == "extract")
    assert isinstance(extract.type, click.Choice)
    hints = typing.get_type_hints(BuildOptions)
    assert tuple(extract.type.choices) == _literal_args(hints["extract"])
    projection = next(p for p in main.commands["communities"].params if p.name == "projection")
    assert isinstance(projection.type, click.Choice)
    assert tuple(projection.type.choices) == _literal_args(
        typing.get_type_hints(CommunityOptions)["projection"]
    )


def _defaults(cls: type[Any]) -> dict[str, Any]:
    """A dataclass's defaults as TOML writes them (no None, tuples as lists)."""
    values = asdict(cls()) if cls is not EvalOptions else {}
    if cls is EvalOptions:
        values = {
            f.name: f.default for f in fields(EvalOptions) if f.name != "dataset"
        }  # the one field without a default
    return _toml_like(values)


def _toml_like(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _toml_like(v) for k, v in value.items() if v is not None}
    if isinstance(value, tuple | list):
        return [_toml_like(v) for v in value]
    return value


def test_the_readme_documents_every_section_with_its_defaults() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```toml\n(.*?)```", section, flags=re.DOTALL)
    documented = tomllib.loads(next(b for b in blocks if "[build]" in b))
    sections = {name: cls or EvalOptions for name, cls in SECTIONS.items()}
    assert set(documented) == set(sections)
    for name, cls in sections.items():
        assert is_dataclass(cls)
        assert documented[name] == _defaults(cls), f"[{name}] differs from {cls.__name__}"
