"""What the command modules share: the consoles and the helpers that turn an options
dataclass's fields into click options (each default written once, in the dataclass)."""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import MISSING, fields, replace
from typing import TYPE_CHECKING, Any, TypeVar

import click

from graphmind.cli_progress import make_console

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

F = TypeVar("F", bound=Callable[..., Any])

out = make_console()
err = make_console(stderr=True)


def _default(cls: type[Any], name: str) -> Any:
    """The default of field ``name`` of options dataclass ``cls``: its one definition."""
    field = next(f for f in fields(cls) if f.name == name)
    if field.default_factory is not MISSING:
        return field.default_factory()
    return field.default


def knob(cls: type[Any], name: str, section: str, key: str | None = None) -> dict[str, Any]:
    """click keywords for an option that sets a settings knob: unset (None) unless given,
    so the command falls back to the settings (``[section] key``), which fall back to
    the options dataclass; ``--help`` shows that default and where to change it."""
    value = _default(cls, name)
    shown = ",".join(map(str, value)) if isinstance(value, tuple) else value
    return {"default": None, "show_default": f"{shown}, or [{section}] {key or name}"}


def choice(cls: type[Any], name: str) -> click.Choice[str]:
    """The allowed values of field ``name``: its ``Literal`` type (or a tuple of one)."""
    kind = typing.get_type_hints(cls)[name]
    if typing.get_origin(kind) is tuple:
        kind = typing.get_args(kind)[0]
    return click.Choice(typing.get_args(kind))


def given[T: DataclassInstance](options: T, **values: Any) -> T:
    """``options`` with the values given on the command line (None: not given)."""
    return replace(options, **{k: v for k, v in values.items() if v is not None})


def json_flag(what: str) -> Callable[[F], F]:
    """``--json`` (``as_json``): print ``what`` as JSON instead of the text report."""
    return click.option("--json", "as_json", is_flag=True, help=f"Print {what} as JSON.")


def loop_knobs(cls: type[Any], section: str) -> Callable[[F], F]:
    """``--max-rounds``, ``--k`` and ``--policy``: the loop's knobs that ``ask`` and
    ``eval`` share, each falling back to ``[section]`` and then to ``cls``'s default."""

    def apply(command: F) -> F:
        for option in reversed(
            (
                click.option(
                    "--max-rounds",
                    type=click.IntRange(min=1),
                    **knob(cls, "max_rounds", section),
                    help="Rounds of the evidence loop.",
                ),
                click.option(
                    "--k",
                    "k",
                    type=click.IntRange(min=1),
                    **knob(cls, "k", section),
                    help="Passages round 1 shows (naive: its vector top-k).",
                ),
                click.option(
                    "--policy",
                    type=choice(cls, "policy"),
                    **knob(cls, "policy", section),
                    help="How a round picks the next hop and when to stop: 'rules' (small "
                    "local models) or 'reflect' (the model names the next hop).",
                ),
            )
        ):
            command = option(command)
        return command

    return apply
