"""Benchmark the local embedders: throughput on a few CPU threads and retrieval recall.

For each embedder (by default sentence-transformers when it is installed, then the ONNX
Runtime provider, both on all-MiniLM-L6-v2):

* texts/s embedding benchmark passages with ``--threads`` threads (default 2), the
  embedders taking turns for ``--reps`` rounds (median), and the speed-up over the first;
* how far its vectors are from the first embedder's (max |difference|, min cosine);
* the compute ceiling of the ONNX model on those threads: the matrix products its
  (length-sorted, padded) batches need, at the float32 GFLOP/s numpy's matrix product
  reaches there, and how close each embedder comes to it;
* gold-passage recall@5 of chunk vector search on dev sets: each dataset's corpus is built
  chunk-only (no LLM) into a temporary FalkorDB Lite store with that embedder, and every
  question's top-5 chunk vectors are checked against its gold passages;
* with ``--venv DIR``: that environment's size on disk and whether it holds torch.

Prints tables; asserts nothing.

    .venv/bin/python scripts/bench_embed.py [--datasets musique,2wiki] [--texts 1000]
        [--embedders st:all-MiniLM-L6-v2,onnx:all-MiniLM-L6-v2] [--venv DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

THREADS = int(os.environ.get("BENCH_THREADS", "2"))
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, str(THREADS))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from graphmind.config import load_settings  # noqa: E402
from graphmind.embed import Embedder, parse_embedder  # noqa: E402
from graphmind.embed.onnx_provider import OnnxEmbedder  # noqa: E402
from graphmind.eval.datasets import EvalDataset, load_dataset, write_corpus  # noqa: E402
from graphmind.eval.metrics import recall_at_k  # noqa: E402
from graphmind.factories import make_embedder  # noqa: E402
from graphmind.ingest.options import BuildOptions  # noqa: E402
from graphmind.ingest.pipeline import BuildPipeline  # noqa: E402
from graphmind.store.falkordb import FalkorDBLiteStore  # noqa: E402

DEFAULT_EMBEDDERS = ("st:all-MiniLM-L6-v2", "onnx:all-MiniLM-L6-v2")
K = 5


def make(name: str, threads: int) -> Embedder:
    """The embedder ``name`` limited to ``threads`` CPU threads."""
    spec = parse_embedder(name)
    if spec.provider == "sentence-transformers":
        import torch

        torch.set_num_threads(threads)
        return make_embedder(load_settings(embedder=name))
    if spec.provider == "onnx":
        settings = load_settings(embedder=name)
        return OnnxEmbedder(spec, batch_size=settings.embed_batch_size, threads=threads)
    return make_embedder(load_settings(embedder=name))


def available(names: list[str]) -> list[str]:
    """The embedders whose libraries are installed (sentence-transformers is optional)."""
    out = []
    for name in names:
        if parse_embedder(name).provider == "sentence-transformers":
            try:
                import sentence_transformers  # noqa: F401
            except ImportError:
                print(f"skipping {name}: sentence-transformers is not installed", file=sys.stderr)
                continue
        out.append(name)
    return out


def throughput(
    embedders: dict[str, Embedder], texts: list[str], reps: int
) -> tuple[dict[str, float], dict[str, list[list[float]]]]:
    """Median texts/s per embedder (turns interleaved) and each one's vectors."""
    seconds: dict[str, list[float]] = {name: [] for name in embedders}
    vectors: dict[str, list[list[float]]] = {}
    for embedder in embedders.values():
        embedder.embed(texts[:64])  # warm up
    for _ in range(reps):
        for name, embedder in embedders.items():
            started = time.perf_counter()
            vectors[name] = embedder.embed(texts)
            seconds[name].append(time.perf_counter() - started)
    return {name: len(texts) / statistics.median(s) for name, s in seconds.items()}, vectors


def ceiling(embedder: OnnxEmbedder, texts: list[str]) -> tuple[float, float, int]:
    """(GFLOP/s of a float32 matrix product, the texts/s the model's matrix products
    allow at that rate, padded tokens) for the ONNX embedder's model on these texts."""
    import numpy as np
    from tokenizers import Tokenizer

    from graphmind.embed.bert_onnx import BertConfig

    config = BertConfig.read(embedder.model_path)
    tokenizer = Tokenizer.from_file(str(embedder.model_path / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=embedder.max_tokens or config.max_positions)
    batch_size = embedder.batch_size
    lengths = sorted(len(e.ids) for e in tokenizer.encode_batch([t.strip() for t in texts]))
    padded = sum(
        max(lengths[i : i + batch_size]) * len(lengths[i : i + batch_size])
        for i in range(0, len(lengths), batch_size)
    )
    h, f = config.hidden_size, config.intermediate_size
    flop_per_token = 2 * config.num_layers * (4 * h * h + 2 * h * f)  # attention is small
    a = np.random.default_rng(0).random((batch_size * 128, h), dtype=np.float32)
    b = np.random.default_rng(1).random((h, f), dtype=np.float32)
    for _ in range(3):
        a @ b
    reps, started = 20, time.perf_counter()
    for _ in range(reps):
        a @ b
    gflops = 2 * a.shape[0] * h * f * reps / (time.perf_counter() - started) / 1e9
    return gflops, len(texts) / (flop_per_token * padded / (gflops * 1e9)), padded


def distance(a: list[list[float]], b: list[list[float]]) -> tuple[float, float]:
    """Max absolute difference and min cosine between two lists of unit vectors."""
    import numpy as np

    x, y = np.asarray(a), np.asarray(b)
    return float(np.abs(x - y).max()), float((x * y).sum(axis=1).min())


def recall(dataset: EvalDataset, embedder: Embedder, folder: Path) -> float:
    """Mean gold-passage recall@5 of chunk vector search over the dataset's questions."""
    corpus = write_corpus(dataset, folder / "corpus.json")
    with FalkorDBLiteStore(str(folder / "graph.db")) as store:
        store.ensure_schema(embedder.spec)
        BuildPipeline(store, embedder, None, BuildOptions(extract="none")).run([str(corpus)])
        questions = [q for q in dataset.questions if q.gold]
        vectors = embedder.embed([q.question for q in questions])
        scores = []
        for question, vector in zip(questions, vectors, strict=True):
            ids = [hit.id for hit in store.vector_search("Chunk", vector, K)]
            rows = {
                r["id"]: r
                for r in store.run(
                    "ask/candidate_context", {"ids": ids, "max_triplets": 0, "connectives": []}
                )
            }
            retrieved = [(rows[i]["title"] or "", rows[i]["text"]) for i in ids if i in rows]
            value = recall_at_k(retrieved, question.gold, K)
            if value is not None:
                scores.append(value)
    return statistics.fmean(scores) if scores else 0.0


def venv_size(path: Path) -> tuple[str, bool]:
    """Size on disk (``du -sh``) of a virtual environment and whether torch is in it."""
    size = subprocess.run(
        ["du", "-sh", str(path)], capture_output=True, text=True, check=False
    ).stdout.split()
    python = path / "bin" / "python"
    has_torch = (
        subprocess.run(
            [
                str(python),
                "-c",
                "import importlib.util,sys; sys.exit(importlib.util.find_spec('torch') is None)",
            ],
            check=False,
        ).returncode
        == 0
    )
    return (size[0] if size else "?"), has_torch


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedders", default=",".join(DEFAULT_EMBEDDERS))
    parser.add_argument(
        "--datasets",
        default="musique",
        help="comma-separated: musique, 2wiki, hotpotqa ('' for no recall runs)",
    )
    parser.add_argument("--limit", type=int, default=None, help="questions per dataset")
    parser.add_argument("--texts", type=int, default=1000, help="passages timed")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--data", type=Path, default=None, help="benchmark data folder")
    parser.add_argument("--venv", type=Path, action="append", default=[])
    args = parser.parse_args()
    console = Console(width=160)
    names = available([n.strip() for n in args.embedders.split(",") if n.strip()])
    embedders = {name: make(name, args.threads) for name in names}
    for embedder in embedders.values():
        embedder.load()

    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    first = load_dataset(datasets[0] if datasets else "musique", args.data)
    texts = [doc.text for doc in first.corpus[: args.texts]]
    rates, vectors = throughput(embedders, texts, args.reps)
    base = names[0]
    speed = Table(
        "embedder",
        "texts/s",
        f"x {base}",
        "load s",
        f"max |Δ| vs {base}",
        "min cosine",
        title=f"throughput: {len(texts)} {first.name} passages, {args.threads} threads, "
        f"median of {args.reps}",
    )
    for name in names:
        diff, cosine = distance(vectors[name], vectors[base])
        speed.add_row(
            name,
            f"{rates[name]:.1f}",
            f"{rates[name] / rates[base]:.2f}",
            f"{embedders[name].stats.load_seconds:.1f}",
            f"{diff:.2e}",
            f"{cosine:.6f}",
        )
    console.print(speed)
    onnx = [e for e in embedders.values() if isinstance(e, OnnxEmbedder)]
    if onnx:
        gflops, limit, padded = ceiling(onnx[0], texts)
        bound = Table(
            "embedder",
            "texts/s",
            "% of ceiling",
            title=f"compute ceiling: {padded} padded tokens, float32 matrix products at "
            f"{gflops:.0f} GFLOP/s (numpy, {args.threads} threads) allow {limit:.1f} texts/s",
        )
        for name in names:
            bound.add_row(name, f"{rates[name]:.1f}", f"{100 * rates[name] / limit:.0f}")
        console.print(bound)

    if datasets:
        table = Table(
            "dataset", "questions", "passages", *names, title=f"recall@{K}, chunk vectors"
        )
        for key in datasets:
            data = load_dataset(key, args.data, limit=args.limit)
            cells = []
            for name in names:
                with tempfile.TemporaryDirectory(prefix="bench-embed-") as tmp:
                    cells.append(f"{recall(data, embedders[name], Path(tmp)):.4f}")
            table.add_row(
                key, str(sum(1 for q in data.questions if q.gold)), str(len(data.corpus)), *cells
            )
            console.print(f"{key}: done", style="dim")
        console.print(table)

    if args.venv:
        sizes = Table("environment", "size", "torch", title="install size")
        for path in args.venv:
            size, has_torch = venv_size(path)
            sizes.add_row(str(path), size, "yes" if has_torch else "no")
        console.print(sizes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
