"""Loaders and chunking: every supported format, stable ids, clear failures."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

from buildkit import minimal_pdf
from graphmind.core.errors import ConfigError
from graphmind.core.text import split_sentences
from graphmind.ingest.chunking import chunk_text, count_tokens
from graphmind.ingest.html_text import html_page, html_to_text
from graphmind.ingest.loaders import LoadOptions, load_paths
from graphmind.ingest.markdown_text import markdown_sections


def test_every_format_loads(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Plain text here.")
    (tmp_path / "b.md").write_text("intro\n# The Title\nBody.")
    (tmp_path / "c.html").write_text(
        "<html><head><title>Page</title><script>x()</script></head><body><p>Hello</p>"
        "<p>World &amp; more</p></body></html>"
    )
    (tmp_path / "d.pdf").write_bytes(minimal_pdf("Text inside a PDF"))
    (tmp_path / "e.jsonl").write_text(
        json.dumps({"title": "One", "text": "First."})
        + "\n\n"
        + json.dumps({"title": "Two", "text": "Second."})
        + "\n"
    )
    (tmp_path / "f.json").write_text(json.dumps({"title": "Solo", "text": "Alone."}))
    result = load_paths([tmp_path])
    assert result.failures == []
    docs = {d.title: d for d in result.documents}
    assert docs["a"].text == "Plain text here."
    assert docs["The Title"].text.endswith("Body.")
    assert docs["Page"].text == "Hello\n\nWorld & more"
    assert docs["d"].text == "Text inside a PDF"
    assert docs["One"].text == "One\nFirst." and docs["One"].source.endswith("e.jsonl#One")
    assert docs["Solo"].text == "Alone."
    assert len({d.id for d in result.documents}) == len(result.documents) == 7


def test_ids_are_deterministic_and_change_with_content(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Version one.")
    first = load_paths([tmp_path]).documents[0]
    assert load_paths([tmp_path / "a.txt"]).documents[0].id == first.id
    (tmp_path / "a.txt").write_text("Version two.")
    second = load_paths([tmp_path]).documents[0]
    assert second.source == first.source and second.id != first.id


def test_include_exclude_and_hidden_files(tmp_path: Path) -> None:
    (tmp_path / "keep.md").write_text("Keep.")
    (tmp_path / "drop.md").write_text("Drop.")
    (tmp_path / "notes.txt").write_text("Notes.")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.txt").write_text("Hidden.")
    options = LoadOptions(include=["*.md"], exclude=["drop*"])
    assert [d.text for d in load_paths([tmp_path], options).documents] == ["Keep."]
    assert sorted(d.text for d in load_paths([tmp_path]).documents) == ["Drop.", "Keep.", "Notes."]


def test_json_fields_and_failures_are_reported(tmp_path: Path) -> None:
    (tmp_path / "custom.json").write_text(json.dumps([{"name": "X", "body": "Body of X."}]))
    (tmp_path / "broken.json").write_text("[{not json")
    (tmp_path / "empty.txt").write_text("   \n")
    result = load_paths([tmp_path], LoadOptions(text_field="body", title_field="name"))
    assert [d.text for d in result.documents] == ["Body of X."]
    reasons = {Path(f.source).name: f.reason for f in result.failures}
    assert "invalid JSON" in reasons["broken.json"]
    assert reasons["empty.txt"] == "no text"
    wrong = load_paths([tmp_path / "custom.json"])
    assert "no record has the text field 'text'" in wrong.failures[0].reason
    with pytest.raises(ConfigError, match="no such file"):
        load_paths([tmp_path / "missing"])


def test_passage_corpus_uses_titles_as_keys(tmp_path: Path) -> None:
    passages = [{"title": "A", "text": "a."}, {"title": "B", "text": "b."}]
    (tmp_path / "corpus.json").write_text(json.dumps(passages))
    docs = load_paths([tmp_path]).documents
    assert [d.source.rsplit("#", 1)[1] for d in docs] == ["A", "B"]
    dup = [{"title": "A", "text": "one."}, {"title": "A", "text": "two."}]
    (tmp_path / "corpus.json").write_text(json.dumps(dup))
    assert [d.source.rsplit("#", 1)[1] for d in load_paths([tmp_path]).documents] == ["0", "1"]


def test_html_text_drops_markup() -> None:
    title, text = html_to_text("<title> T </title><style>a{}</style><div>A<br>B</div>")
    assert title == "T" and text == "A\n\nB"


def test_chunking_respects_size_sentences_and_overlap() -> None:
    sentences = [f"Sentence {i} has exactly seven tokens." for i in range(40)]
    text = " ".join(sentences)
    chunks = chunk_text("doc", text, size=30, overlap=8)
    assert all(c.tokens <= 30 for c in chunks)
    assert [c.position for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert chunk.text in text and chunk.text.endswith(".")
        assert chunk.tokens == count_tokens(chunk.text)
    for previous, current in pairwise(chunks):
        assert current.text.split(". ")[0] + "." in previous.text  # one sentence carried over
    covered = " ".join(c.text for c in chunks)
    assert all(s in covered for s in sentences)
    again = chunk_text("doc", text, size=30, overlap=8)
    assert [c.id for c in again] == [c.id for c in chunks]
    assert chunk_text("other", text, size=30, overlap=8)[0].id != chunks[0].id


def test_sentence_splitting_keeps_abbreviations_and_quotes() -> None:
    text = 'Dr. Smith met J. K. Rowling. She said "Hello!" Then they left.\n\nNew paragraph'
    assert split_sentences(text) == [
        "Dr. Smith met J. K. Rowling.",
        'She said "Hello!"',
        "Then they left.",
        "New paragraph",
    ]


def test_one_huge_sentence_is_cut_into_windows() -> None:
    chunks = chunk_text("doc", "word " * 1000, size=100, overlap=10)
    assert len(chunks) == 10 and all(c.tokens == 100 for c in chunks)


def test_html_text_is_the_main_content_without_the_sites_chrome() -> None:
    """Navigation, banners, footers and sidebars repeat on every page of a site: a
    documentation build got "Next topic / This Page / Report a Bug" chunks from each."""
    page = (
        "<html><head><title>FAQ</title></head><body>"
        "<div class='related' role='navigation'>index | modules | next</div>"
        "<header>Site banner</header><nav>Home</nav>"
        "<div role='main'><article><header>How do I copy a file?</header>"
        "<p>The shutil module\ncontains copyfile.</p><div><div>Nested.</div></div></article>"
        "<aside>Related pages</aside></div>"
        "<div class='sphinxsidebar' role='navigation'><h3>This Page</h3></div>"
        "<footer>Copyright</footer></body></html>"
    )
    title, text = html_to_text(page)
    assert title == "FAQ"
    assert text == "How do I copy a file?\n\nThe shutil module contains copyfile.\n\nNested."
    # without a main element, the page's text less its chrome
    plain = "<body><nav>Menu</nav><div><p>Only text</p></div><footer>foot</footer></body>"
    assert html_to_text(plain)[1] == "Only text"


def test_a_section_of_a_page_starts_a_new_chunk() -> None:
    """A manual's FAQ entry began at the end of a chunk about the entry before it, so the
    passage naive's vector search found for the entry's own question was the other one."""
    faq = (
        "<title>FAQ</title><main><h1>Programming FAQ</h1>"
        + "".join(
            f"<h3>Why does thing {i} happen?</h3>"
            + "".join(f"<p>Thing {i} happens for reason {j}, as shown here.</p>" for j in range(6))
            for i in range(4)
        )
        + "<pre># a comment, not a heading\nx = 1</pre></main>"
    )
    page = html_page(faq)
    assert page.title == "FAQ" and page.text == html_to_text(faq)[1]
    headings = [page.text[s:].split("\n", 1)[0] for s in page.sections]
    assert headings == ["Programming FAQ"] + [f"Why does thing {i} happen?" for i in range(4)]
    chunks = chunk_text("faq", page.text, size=60, overlap=10, sections=page.sections)
    # each question opens a chunk, and no chunk holds the end of one and the start of
    # the next (the title's short section joins the first question's)
    starts = [c.text.split("\n", 1)[0] for c in chunks]
    assert [s for s in starts if s.startswith("Why")] == headings[2:]
    assert starts[0] == "Programming FAQ" and headings[1] in chunks[0].text
    for c in chunks:
        assert len({n for n in range(4) if f"Thing {n} " in c.text}) == 1
    # without the sections, chunks run across them
    plain = chunk_text("faq", page.text, size=60, overlap=10)
    assert any(len({n for n in range(4) if f"Thing {n} " in c.text}) > 1 for c in plain)


def test_markdown_headings_are_sections_and_code_comments_are_not(tmp_path: Path) -> None:
    code = "```python\n# install\nx = 1\n```"
    text = f"# Guide\n\nIntro.\n\n{code}\n\n## Usage\nRun it.\n  ### Deep\n#no\n"
    (tmp_path / "guide.md").write_text(text)
    [doc] = load_paths([tmp_path]).documents
    assert doc.title == "Guide"
    assert [text[s:].split("\n", 1)[0] for s in doc.sections] == ["# Guide", "## Usage", "### Deep"]
    assert markdown_sections("~~~\n# x\n~~~\n# Real\n") == (12,)


def test_the_sites_name_leaves_html_titles(tmp_path: Path) -> None:
    """Every page of a documentation site ends its title with the site's name, which
    the 1.5B gave as the answer to questions about the manual."""
    site = " \u2014 Python 3.11.2 documentation"
    for name, title in [("faq", "Programming FAQ"), ("copy", "copy"), ("gil", "Glossary")]:
        (tmp_path / f"{name}.html").write_text(f"<title>{title}{site}</title><p>{name} text.</p>")
    (tmp_path / "home.html").write_text(f"<title>{site.strip(' —')}</title><p>home.</p>")
    (tmp_path / "notes.md").write_text(f"# Notes{site}\n\nMarkdown keeps its title.")
    titles = {Path(d.source).stem: d.title for d in load_paths([tmp_path]).documents}
    assert titles == {
        "faq": "Programming FAQ",
        "copy": "copy",
        "gil": "Glossary",
        "home": "Python 3.11.2 documentation",
        "notes": f"Notes{site}",
    }
    # two pages are not a site: their titles stay whole
    (tmp_path / "gil.html").unlink()
    titles = {Path(d.source).stem: d.title for d in load_paths([tmp_path]).documents}
    assert titles["faq"] == f"Programming FAQ{site}"
