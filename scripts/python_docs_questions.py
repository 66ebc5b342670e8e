"""Write the explanatory question set over Python's documentation (Debian's python3.11-doc).

    apt-get install python3.11-doc
    python scripts/python_docs_questions.py /usr/share/doc/python3.11/html \
        scripts/questions/python_docs_explain.json

The how / what / why questions of the manual's own FAQ pages (programming, design,
library), ``--faq`` of them spread evenly over the pages, each with the FAQ's answer as
its reference (prose only: code blocks and markup left out, cut at a sentence end; those
whose answer is only a pointer left out), and a few questions users ask that the FAQ does
not, with references quoted from the glossary and the tutorial. The documentation is
under the PSF licence (its ``copyright.html``); the questions and references quote it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

FAQ_PAGES = ("programming", "design", "library")
FORMS = re.compile(r"^(How|What|Why)\b")
REFERENCE_CHARS = 700
MIN_REFERENCE_CHARS = 120  # shorter: a pointer ("See the next question."), not an answer
UNDERLINE = re.compile(r"^([-=^~*])\1{3,}$")
ROLE = re.compile(r":[a-z:]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")
LINK = re.compile(r"`([^`<]+?)\s*<[^>]+>`_+")
LITERAL = re.compile(r"``([^`]+)``")

# questions a user asks that the FAQ does not, with the manual's own words as reference
EXTRA = (
    (
        "What does the global interpreter lock do?",
        "glossary",
        "The mechanism used by the CPython interpreter to assure that only one thread "
        "executes Python bytecode at a time. This simplifies the CPython implementation by "
        "making the object model (including critical built-in types such as dict) implicitly "
        "safe against concurrent access. Locking the entire interpreter makes it easier for "
        "the interpreter to be multi-threaded, at the expense of much of the parallelism "
        "afforded by multi-processor machines.",
    ),
    (
        "How do I read a file line by line in Python?",
        "tutorial/inputoutput",
        "For reading lines from a file, you can loop over the file object (for line in f: "
        "...). This is memory efficient, fast, and leads to simple code.",
    ),
    (
        "Why should I use the with keyword when opening a file?",
        "tutorial/inputoutput",
        "It is good practice to use the with keyword when dealing with file objects. The "
        "advantage is that the file is properly closed after its suite finishes, even if an "
        "exception is raised at some point. Using with is also much shorter than writing "
        "equivalent try-finally blocks.",
    ),
)


def faq_entries(source: Path, page: str) -> list[tuple[str, str]]:
    """(question, reference) for each how/what/why section title of one FAQ page."""
    lines = (source / "faq" / f"{page}.rst.txt").read_text(encoding="utf-8").splitlines()
    titles = [
        i
        for i in range(len(lines) - 1)
        if UNDERLINE.match(lines[i + 1]) and len(lines[i + 1]) >= len(lines[i].rstrip()) > 0
    ]
    entries = []
    for n, i in enumerate(titles):
        question = lines[i].strip()
        if not (question.endswith("?") and FORMS.match(question)):
            continue
        end = titles[n + 1] if n + 1 < len(titles) else len(lines)
        reference = prose(lines[i + 2 : end])
        if len(reference) >= MIN_REFERENCE_CHARS:
            entries.append((" ".join(question.split()), reference))
    return entries


def prose(lines: list[str]) -> str:
    """The section's paragraphs without code blocks or markup, cut at a sentence end."""
    kept: list[str] = []
    code = False
    for line in lines:
        if code and (not line.strip() or line.startswith((" ", "\t"))):
            continue
        code = False
        if line.startswith((" ", "\t", "..")) or line.strip().startswith(">>>"):
            continue
        kept.append(line.strip())
        if line.rstrip().endswith("::"):
            code = True
    text = " ".join(" ".join(kept).split()).replace("::", ":")
    text = LINK.sub(r"\1", ROLE.sub(r"\1", LITERAL.sub(r"\1", text)))
    if len(text) <= REFERENCE_CHARS:
        return text
    cut = text[:REFERENCE_CHARS]
    return cut[: cut.rfind(". ") + 1] or cut


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html", type=Path, help="the manual's html folder (with _sources/)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--faq", type=int, default=60, help="FAQ questions to take")
    args = parser.parse_args()
    source = args.html / "_sources"
    if not (source / "faq").is_dir():
        print(f"error: {source}/faq not found: install python3.11-doc", file=sys.stderr)
        return 1
    faq = [(q, r, f"faq/{p}") for p in FAQ_PAGES for q, r in faq_entries(source, p)]
    count = min(args.faq, len(faq))
    chosen = [faq[i * len(faq) // count] for i in range(count)]  # spread over the pages
    rows = [
        {"id": f"pydoc-{n:03d}", "question": q, "reference": r, "page": page}
        for n, (q, page, r) in enumerate(
            [(q, page, r) for q, r, page in chosen] + list(EXTRA), start=1
        )
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(rows)} questions ({len(chosen)} from the FAQ, {len(EXTRA)} more)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
