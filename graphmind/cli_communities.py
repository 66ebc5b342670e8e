"""``graphmind communities``: recompute the communities, their summaries and PageRank."""

from __future__ import annotations

import json
from collections.abc import Callable

import click

from graphmind.cli_common import choice, err, given, json_flag, knob, out
from graphmind.communities.pipeline import CommunityOptions, ProjectionKind
from graphmind.config import Settings


def register(main: click.Group) -> None:
    """Add the ``communities`` command to the command line."""

    @main.command(name="communities")
    @click.option(
        "--projection",
        type=choice(CommunityOptions, "projection"),
        **knob(CommunityOptions, "projection", "communities"),
        help="Entity graph: RELATED edges or co-mention in a chunk.",
    )
    @click.option(
        "--max-size",
        type=click.IntRange(min=2),
        **knob(CommunityOptions, "max_size", "communities"),
        help="Split communities above this.",
    )
    @click.option(
        "--levels",
        type=click.IntRange(min=1),
        **knob(CommunityOptions, "max_levels", "communities"),
        help="At most this many levels.",
    )
    @click.option(
        "--resolution",
        type=click.FloatRange(min=0, min_open=True),
        **knob(CommunityOptions, "resolution", "communities"),
        help="Leiden resolution (above 0; higher: smaller communities).",
    )
    @click.option(
        "--summaries/--no-summaries",
        **knob(CommunityOptions, "summarize", "communities"),
        help="Summarise new communities with the LLM (else: member names).",
    )
    @json_flag("the result")
    @click.pass_obj
    def communities_command(
        settings: Callable[[], Settings],
        projection: ProjectionKind | None,
        max_size: int | None,
        levels: int | None,
        resolution: float | None,
        summaries: bool | None,
        as_json: bool,
    ) -> None:
        """Recompute communities (hierarchical Leiden), their summaries and PageRank."""
        from graphmind import api
        from graphmind.cli_progress import make_progress, print_community_stats

        config = settings()
        options = given(
            config.communities,
            projection=projection,
            max_size=max_size,
            max_levels=levels,
            resolution=resolution,
            summarize=summaries,
        )
        with make_progress(err, enabled=not as_json) as progress:
            stats = api.communities(options, config, progress)
        if as_json:
            click.echo(json.dumps(stats.__dict__, indent=2, default=str))
        else:
            print_community_stats(out, stats.__dict__)
