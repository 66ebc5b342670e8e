"""``graphmind documents``: list, show and delete the documents in the store."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence

import click
from rich.console import Console
from rich.table import Table

from graphmind.cli_common import json_flag
from graphmind.config import Settings
from graphmind.ingest.documents import LIST_LIMIT


def register(main: click.Group, out: Console) -> None:
    """Add the ``documents`` group to the command line."""

    @main.group(name="documents")
    def documents_group() -> None:
        """List, show and delete the documents in the store."""

    @documents_group.command(name="list")
    @click.option("--match", metavar="TEXT", help="Only documents whose title or source has it.")
    @click.option(
        "--limit",
        type=click.IntRange(min=1),
        default=LIST_LIMIT,
        show_default=True,
        help="At most this many.",
    )
    @json_flag("the documents")
    @click.pass_obj
    def list_command(
        settings: Callable[[], Settings], match: str | None, limit: int, as_json: bool
    ) -> None:
        """Documents by source: id, title, chunks, how they were extracted, when built."""
        from graphmind import api

        docs = api.documents(match, limit=limit, settings=settings())
        if as_json:
            click.echo(json.dumps([d.__dict__ for d in docs], indent=2))
            return
        table = Table("id", "title", "source", "chunks", "extraction", "built")
        for d in docs:
            table.add_row(
                d.id, d.title, d.source, str(d.chunks), d.extract_mode, _when(d.ingested_at)
            )
        out.print(table)
        more = f" (the first {limit}; --limit shows more)" if len(docs) == limit else ""
        out.print(f"{len(docs)} document(s){more}", style="dim", highlight=False)

    @documents_group.command(name="show")
    @click.argument("ref", metavar="DOCUMENT")
    @json_flag("the document")
    @click.pass_obj
    def show_command(settings: Callable[[], Settings], ref: str, as_json: bool) -> None:
        """One document (id, title, source or file) with its chunks and what uses them."""
        from graphmind import api

        detail = api.document(ref, settings())
        if as_json:
            data = dict(detail.__dict__)
            data["document"] = detail.document.__dict__
            click.echo(json.dumps(data, indent=2, default=str))
            return
        d = detail.document
        out.print(f"[bold]{d.title}[/]  {d.id}", highlight=False)
        out.print(
            f"source {d.source}; extraction {d.extract_mode}; built {_when(d.ingested_at)}",
            highlight=False,
        )
        chunks = Table("#", "chunk", "tokens", "extraction", "text")
        for c in detail.chunks:
            text = " ".join(str(c["text"] or "").split())
            chunks.add_row(
                str(c["position"]),
                str(c["id"]),
                str(c["tokens"]),
                str(c["extraction"]),
                text if len(text) <= 80 else text[:79] + "…",
            )
        out.print(chunks)
        out.print(
            f"{detail.triplets} triplet(s) ({detail.triplets_shared} also mentioned elsewhere), "
            f"{len(detail.entities)} entities, {detail.communities} communities and "
            f"{detail.episodes} episodes built on them, {len(detail.decisions)} decision(s) "
            "judged or cited them",
            highlight=False,
        )
        if detail.entities:
            out.print("entities: " + ", ".join(detail.entities), highlight=False)
        for decision in detail.decisions:
            out.print(f"decision {decision}  (graphmind trace {decision})", highlight=False)

    @documents_group.command(name="delete")
    @click.argument("refs", metavar="DOCUMENT...", nargs=-1, required=True)
    @click.option(
        "--all",
        "allow_many",
        is_flag=True,
        help="Delete every document a name matches (a shared title, a corpus file).",
    )
    @click.option("--dry-run", is_flag=True, help="Only count what would be deleted.")
    @json_flag("the result")
    @click.pass_obj
    def delete_command(
        settings: Callable[[], Settings],
        refs: Sequence[str],
        allow_many: bool,
        dry_run: bool,
        as_json: bool,
    ) -> None:
        """Delete documents (by id, title, source or file) with their chunks, the triplets
        and entities only they held, and the communities and episodes built on them.
        Decisions that used them keep their record and note what is gone."""
        from graphmind import api

        report = api.delete_documents(
            refs, dry_run=dry_run, allow_many=allow_many, settings=settings()
        )
        if as_json:
            click.echo(json.dumps(report.as_dict(), indent=2, default=str))
            return
        verb = "would delete" if dry_run else "deleted"
        for d in report.documents:
            out.print(f"{verb} {d.title} ({d.id}, {d.source})", highlight=False)
        out.print(
            f"{verb} {len(report.documents)} document(s), {report.chunks} chunk(s), "
            f"{report.triplets} triplet(s), {report.entities} entities, "
            f"{report.communities} communities, {report.episodes} episodes; "
            f"{report.decisions_noted} decision(s) "
            + ("would keep" if dry_run else "keep")
            + " their record with a note of what is gone",
            highlight=False,
        )
        if report.communities and not dry_run:
            out.print(
                "the community layer is stale: graphmind communities (or the next build) "
                "recomputes it",
                style="dim",
                highlight=False,
            )


def _when(millis: int | None) -> str:
    if not millis:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(millis / 1000))
