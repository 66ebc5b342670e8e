"""Benchmark adapters: questions, gold answers, gold passages and the closed corpus.

The data are read from the shared benchmark folder (``GRAPHMIND_EVAL_DATA``, by default
``shared/data`` beside the repository), laid out as its README describes:

* ``musique``: ``dev_subset/musique_dev_292.json`` (292 questions) and its derived corpus.
* ``hotpotqa``: ``dev_subset/hotpotqa_dev_200.json`` (200 questions) and its derived corpus.
* ``2wiki``: the exact HippoRAG 6,119-passage corpus, with every 2Wiki question that has an
  answer and whose gold passages are all in that corpus (the "questions with answers" file
  plus the dev_164 questions that pass the same test).
* ``locomo``: ``locomo10.json``; each session is one document, each dialogue turn one
  ``[D<s>:<t>] speaker: text`` line; category 5 (adversarial) questions are unanswerable.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from graphmind.core.errors import BadInputError, NotFoundError
from graphmind.core.scoring import normalize_answer

DATA_ENV = "GRAPHMIND_EVAL_DATA"
DATASETS = ("musique", "hotpotqa", "2wiki", "locomo")

MUSIQUE_QUESTIONS = "musique/dev_subset/musique_dev_292.json"
MUSIQUE_CORPUS = "musique/dev_subset/musique_dev_292_corpus.json"
HOTPOTQA_QUESTIONS = "hotpotqa/dev_subset/hotpotqa_dev_200.json"
HOTPOTQA_CORPUS = "hotpotqa/dev_subset/hotpotqa_dev_200_corpus.json"
TWOWIKI_QUESTIONS = (
    "2wikimultihopqa/hipporag_full_corpus/2wikimultihopqa_hipporag_questions_with_answers.json",
    "2wikimultihopqa/dev_subset/2wikimultihopqa_dev_164.json",
)
TWOWIKI_CORPUS = "2wikimultihopqa/hipporag_full_corpus/2wikimultihopqa_corpus.json"
LOCOMO_FILE = "locomo/locomo10.json"

# A chunk is gold when its longest run of words shared with the passage covers at least
# GOLD_OVERLAP of the shorter of the two and at least GOLD_MIN_RUN words (or the whole
# passage, when shorter), and the run reaches, within GOLD_EDGE_SLACK words, an end of the
# chunk or of the passage on each side: one text holds the other, or they overlap at an edge.
GOLD_OVERLAP = 0.5
GOLD_MIN_RUN = 8
GOLD_EDGE_SLACK = 2

_WORD = re.compile(r"\w+")
_HOPS = re.compile(r"^(\d+hop)")
_SESSION = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"D:?(\d+):(\d+)")
_ADVERSARIAL = 5


@dataclass(frozen=True)
class GoldPassage:
    """A supporting passage: its document title and its text."""

    title: str
    text: str


@dataclass(frozen=True)
class CorpusDoc:
    """One corpus document, in the ``{"title", "text"}`` form ``graphmind build`` reads."""

    title: str
    text: str


@dataclass
class EvalQuestion:
    """A benchmark question with its gold answers (first the answer, then aliases)."""

    id: str
    question: str
    answers: list[str]
    gold: list[GoldPassage]
    category: str | None
    answerable: bool = True


@dataclass
class EvalDataset:
    """The selected questions and the closed corpus they are asked against."""

    name: str
    questions: list[EvalQuestion]
    corpus: list[CorpusDoc]
    source: str


@dataclass
class _Loaded:
    questions: list[EvalQuestion]
    corpus_of: Callable[[list[EvalQuestion]], list[CorpusDoc]]
    sources: list[Path]


def default_data_root() -> Path:
    """``$GRAPHMIND_EVAL_DATA``, else the ``shared/data`` folder next to the repository."""
    configured = os.environ.get(DATA_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"


def load_dataset(
    name: str,
    data_root: Path | None = None,
    *,
    limit: int | None = None,
    seed: int = 0,
    path: Path | None = None,
    subset: str | None = None,
) -> EvalDataset:
    """Load a benchmark's questions and closed corpus.

    ``path`` replaces the question file: MuSiQue and HotpotQA then derive the corpus from
    that file's paragraphs (the way the shipped corpora were made), 2Wiki keeps the full
    corpus and the file's questions whose gold passages it holds. ``subset`` keeps the
    questions whose id starts with it, up to a letter or digit (``conv-30``: that LoCoMo
    conversation; ``2hop``: MuSiQue's 2-hop questions). ``limit`` then keeps that many
    questions drawn with ``random.Random(seed)``, in file order; the corpus stays whole
    (LoCoMo: the conversations the kept questions come from).
    """
    loaders: dict[str, Callable[[Path, Path | None], _Loaded]] = {
        "musique": _load_musique,
        "hotpotqa": _load_hotpotqa,
        "2wiki": _load_2wiki,
        "locomo": _load_locomo,
    }
    key = name.lower()
    if key not in loaders:
        raise BadInputError(f"unknown dataset {name!r}; expected one of {', '.join(DATASETS)}")
    if limit is not None and limit < 1:
        raise BadInputError(f"limit must be at least 1 (got {limit})")
    if path is not None and not path.is_file():
        if path.is_dir():
            raise BadInputError(f"the question file {path} is a folder, not a file")
        raise NotFoundError(f"the question file {path} does not exist")
    loaded = loaders[key](data_root if data_root is not None else default_data_root(), path)
    if not loaded.questions:
        files = ", ".join(str(p) for p in loaded.sources)
        raise BadInputError(f"no usable {key} question in {files}")
    questions = loaded.questions
    if subset is not None:
        prefix = re.compile(re.escape(subset) + r"(?![0-9A-Za-z])")
        questions = [q for q in questions if prefix.match(q.id)]
        if not questions:
            raise BadInputError(f"no {key} question id starts with {subset!r}")
    selected = _select(questions, limit, seed)
    return EvalDataset(
        name=key,
        questions=selected,
        corpus=loaded.corpus_of(selected),
        source="; ".join(str(p) for p in loaded.sources),
    )


def is_gold(title: str, text: str, gold: GoldPassage) -> bool:
    """Whether a retrieved (title, text) chunk carries the gold passage or a piece of it.

    Titles must be equal ignoring case and spacing. Text must count too (MuSiQue titles
    repeat, often with near-identical paragraphs): the chunk must hold the passage, be a
    substantial piece of it (a passage split over several chunks), or overlap it at an
    edge, as word runs; two versions of a paragraph that differ inside do not match.
    """
    if _title_key(title) != _title_key(gold.title):
        return False
    passage = _words(gold.text)
    if not passage:
        return True
    chunk = _words(text)
    run = SequenceMatcher(None, chunk, passage, autojunk=False).find_longest_match()
    shorter = min(len(chunk), len(passage))
    if run.size < GOLD_OVERLAP * shorter or run.size < min(len(passage), GOLD_MIN_RUN):
        return False
    starts_at_edge = min(run.a, run.b) <= GOLD_EDGE_SLACK
    ends_at_edge = min(len(chunk) - run.a, len(passage) - run.b) - run.size <= GOLD_EDGE_SLACK
    return starts_at_edge and ends_at_edge


def gold_hits(retrieved: Sequence[tuple[str, str]], gold: Sequence[GoldPassage], k: int) -> int:
    """How many distinct gold passages appear among the top ``k`` retrieved chunks."""
    top = retrieved[:k]
    return sum(any(is_gold(title, text, g) for title, text in top) for g in dict.fromkeys(gold))


def write_corpus(dataset: EvalDataset, path: Path) -> Path:
    """Write the corpus as a JSON list of ``{"title", "text"}`` (what ``graphmind build`` reads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    docs = [{"title": d.title, "text": d.text} for d in dataset.corpus]
    path.write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    return path


def _select(questions: list[EvalQuestion], limit: int | None, seed: int) -> list[EvalQuestion]:
    if limit is None or limit >= len(questions):
        return list(questions)
    chosen = sorted(random.Random(seed).sample(range(len(questions)), limit))
    return [questions[i] for i in chosen]


def _title_key(title: str) -> str:
    return " ".join(title.split()).casefold()


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _answers(values: Iterable[object]) -> list[str]:
    """Non-empty answers as text, without repeats under SQuAD normalisation."""
    seen: dict[str, str] = {}
    for value in values:
        text = str(value).strip()
        if text and normalize_answer(text) not in seen:
            seen[normalize_answer(text)] = text
    return list(seen.values())


def _read_json(path: Path, what: str) -> Any:
    if not path.is_file():
        raise NotFoundError(
            f"{what} not found: expected {path} (set {DATA_ENV} to the folder holding "
            "musique/, hotpotqa/, 2wikimultihopqa/ and locomo/)"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(f"cannot read {what} {path}: {exc}") from None
    try:
        if path.suffix == ".jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{what} {path} is not valid JSON: {exc}") from None
    except RecursionError:
        raise BadInputError(f"{what} {path} is JSON nested too deeply to read") from None


def _records(path: Path, what: str) -> list[dict[str, Any]]:
    data = _read_json(path, what)
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise BadInputError(f"{what} {path} must be a JSON list of objects")
    return data


def _parse[T](path: Path, what: str, parse: Callable[[dict[str, Any]], T]) -> list[T]:
    """Apply ``parse`` to every record, turning a malformed record into a clear error."""
    parsed: list[T] = []
    for index, record in enumerate(_records(path, what)):
        try:
            parsed.append(parse(record))
        except (KeyError, TypeError, ValueError) as exc:
            raise BadInputError(f"{what} {path}: record {index} is malformed ({exc!r})") from None
    return parsed


def _corpus_file(path: Path) -> list[CorpusDoc]:
    return _parse(path, "corpus", lambda r: CorpusDoc(str(r["title"]), str(r["text"])))


def _whole(corpus: list[CorpusDoc]) -> Callable[[list[EvalQuestion]], list[CorpusDoc]]:
    return lambda _selected: corpus


def _load_musique(root: Path, path: Path | None) -> _Loaded:
    questions_file = path or root / MUSIQUE_QUESTIONS
    parsed = _parse(
        questions_file,
        "MuSiQue question file",
        lambda r: (_musique_question(r), _musique_paragraphs(r)),
    )
    return _closed(root / MUSIQUE_CORPUS, questions_file, parsed, derive=path is not None)


def _musique_question(record: dict[str, Any]) -> EvalQuestion:
    qid = str(record["id"])
    hops = _HOPS.match(qid)
    gold = [
        GoldPassage(str(p["title"]), str(p["paragraph_text"]))
        for p in record["paragraphs"]
        if p.get("is_supporting")
    ]
    return EvalQuestion(
        id=qid,
        question=str(record["question"]),
        answers=_answers([record["answer"], *record.get("answer_aliases", [])]),
        gold=list(dict.fromkeys(gold)),
        category=hops.group(1) if hops else None,
        answerable=bool(record.get("answerable", True)),
    )


def _musique_paragraphs(record: dict[str, Any]) -> list[CorpusDoc]:
    return [CorpusDoc(str(p["title"]), str(p["paragraph_text"])) for p in record["paragraphs"]]


def _closed(
    corpus_file: Path,
    questions_file: Path,
    parsed: list[tuple[EvalQuestion, list[CorpusDoc]]],
    *,
    derive: bool,
) -> _Loaded:
    """Questions with the shipped corpus, or (``derive``) with every paragraph of their
    records, deduplicated on (title, text) in first-appearance order, as HippoRAG does."""
    questions = [question for question, _paragraphs in parsed]
    if derive:
        corpus = list(dict.fromkeys(doc for _question, docs in parsed for doc in docs))
        return _Loaded(questions, _whole(corpus), [questions_file])
    return _Loaded(questions, _whole(_corpus_file(corpus_file)), [questions_file, corpus_file])


def _context(record: Mapping[str, Any], sep: str) -> list[CorpusDoc]:
    """A HotpotQA/2Wiki record's context paragraphs, sentences joined with ``sep``."""
    return [CorpusDoc(str(title), sep.join(sentences)) for title, sentences in record["context"]]


def _context_question(record: dict[str, Any], sep: str) -> EvalQuestion:
    """A HotpotQA/2Wiki record: gold passages are the context entries named by supporting_facts."""
    context = {doc.title: doc.text for doc in _context(record, sep)}
    titles = dict.fromkeys(str(title) for title, _sentence in record["supporting_facts"])
    return EvalQuestion(
        id=str(record["_id"]),
        question=str(record["question"]),
        answers=_answers([record["answer"]]),
        gold=[GoldPassage(t, context[t]) for t in titles if t in context],
        category=str(record["type"]) if record.get("type") else None,
    )


def _load_hotpotqa(root: Path, path: Path | None) -> _Loaded:
    questions_file = path or root / HOTPOTQA_QUESTIONS
    parsed = _parse(
        questions_file,
        "HotpotQA question file",
        lambda r: (_context_question(r, ""), _context(r, "")),
    )
    return _closed(root / HOTPOTQA_CORPUS, questions_file, parsed, derive=path is not None)


def _load_2wiki(root: Path, path: Path | None) -> _Loaded:
    """HippoRAG's full corpus, or the closed corpus a question file has beside it
    (``NAME_corpus.json`` for ``NAME.json``, as the dev subset's)."""
    own = None if path is None else path.with_name(f"{path.stem}_corpus.json")
    corpus_file = own if own is not None and own.is_file() else root / TWOWIKI_CORPUS
    corpus = _corpus_file(corpus_file)
    in_corpus = {(doc.title, doc.text) for doc in corpus}
    files = [path] if path is not None else [root / name for name in TWOWIKI_QUESTIONS]
    questions: dict[str, EvalQuestion] = {}
    for questions_file in files:
        for question in _parse(
            questions_file, "2Wiki question file", lambda r: _context_question(r, " ")
        ):
            located = all((g.title, g.text) in in_corpus for g in question.gold)
            if question.answers and question.gold and located:
                questions.setdefault(question.id, question)
    return _Loaded(list(questions.values()), _whole(corpus), [*files, corpus_file])


def _load_locomo(root: Path, path: Path | None) -> _Loaded:
    file = path or root / LOCOMO_FILE
    questions: list[EvalQuestion] = []
    conversation_of: dict[str, str] = {}
    sessions: dict[str, list[CorpusDoc]] = {}
    for index, record in enumerate(_records(file, "LoCoMo file")):
        try:
            sample_id = str(record["sample_id"])
            docs, turns = _locomo_sessions(sample_id, record["conversation"])
            asked = [
                _locomo_question(f"{sample_id}:{n}", qa, turns) for n, qa in enumerate(record["qa"])
            ]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            message = f"LoCoMo file {file}: record {index} is malformed ({exc!r})"
            raise BadInputError(message) from None
        sessions[sample_id] = docs
        conversation_of.update((q.id, sample_id) for q in asked)
        questions.extend(asked)

    def corpus_of(selected: list[EvalQuestion]) -> list[CorpusDoc]:
        wanted = dict.fromkeys(conversation_of[q.id] for q in selected)
        return [doc for sample_id in wanted for doc in sessions[sample_id]]

    return _Loaded(questions, corpus_of, [file])


def _locomo_sessions(
    sample_id: str, conversation: Mapping[str, Any]
) -> tuple[list[CorpusDoc], dict[tuple[int, int], GoldPassage]]:
    """One document per session in numeric order, and each turn's line keyed by its dia_id."""
    numbers = sorted(
        int(match.group(1))
        for key, value in conversation.items()
        if (match := _SESSION.match(key)) and isinstance(value, list)
    )
    docs: list[CorpusDoc] = []
    turns: dict[tuple[int, int], GoldPassage] = {}
    for number in numbers:
        when = conversation.get(f"session_{number}_date_time")
        title = f"conversation {sample_id} session {number}" + (f" ({when})" if when else "")
        lines: list[str] = []
        for turn in conversation[f"session_{number}"]:
            line = f"[{turn['dia_id']}] {turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                line += f" [shares an image: {turn['blip_caption']}]"
            line = " ".join(line.split())
            lines.append(line)
            for ids in _DIA_ID.findall(str(turn["dia_id"])):
                turns[int(ids[0]), int(ids[1])] = GoldPassage(title, line)
        docs.append(CorpusDoc(title, "\n".join(lines)))
    return docs, turns


def _locomo_question(
    qid: str, qa: Mapping[str, Any], turns: Mapping[tuple[int, int], GoldPassage]
) -> EvalQuestion:
    """A LoCoMo question; evidence ids are parsed leniently ("D8:6; D9:17", "D:11:26",
    "D30:05") and ids naming no turn are dropped."""
    ids = [(int(s), int(t)) for evidence in qa["evidence"] for s, t in _DIA_ID.findall(evidence)]
    found = (turns.get(dia_id) for dia_id in ids)
    adversarial = int(qa["category"]) == _ADVERSARIAL
    return EvalQuestion(
        id=qid,
        question=str(qa["question"]),
        answers=[] if adversarial else _answers([qa["answer"]]),
        gold=list(dict.fromkeys(g for g in found if g is not None)),
        category=str(qa["category"]),
        answerable=not adversarial,
    )
