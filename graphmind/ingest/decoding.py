"""Text from a file's bytes, the way a user expects: a byte-order mark decides, else
UTF-8, else the encoding ``charset-normalizer`` detects (an encoding given overrides);
the BOM is dropped, and NUL and other control characters are removed (no store accepts
them everywhere)."""

from __future__ import annotations

import codecs

from graphmind.core.errors import BadInputError

LEGACY = "cp1252"  # the encoding preferred when detection finds several equally good
NUL_SHARE = 0.05  # above this share of NUL bytes, UTF-8 is not believed (UTF-16 without BOM)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# C0 and C1 control characters (tab and line breaks kept; vertical tab, form feed and
# NEL become line breaks), DEL, and lone surrogates (from JSON escapes; not encodable).
_CLEAN: dict[int, str | None] = {
    **{c: None for c in range(0x20) if chr(c) not in "\t\n\r"},
    0x0B: "\n",
    0x0C: "\n",
    0x7F: None,
    **{c: None for c in range(0x80, 0xA0)},
    0x85: "\n",
    **{c: None for c in range(0xD800, 0xE000)},
}
_NOT_CLEAN = frozenset(_CLEAN)


def check_encoding(name: str) -> str:
    """The codec's canonical name; BadInputError for an unknown encoding."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise BadInputError(
            f"unknown encoding {name!r} (e.g. utf-8, latin-1, cp1252, utf-16)"
        ) from None


def read_text(data: bytes, encoding: str | None = None) -> tuple[str, str | None]:
    """Decode a file's bytes: ``encoding`` when given, else by its byte-order mark, else
    UTF-8, else what charset-normalizer detects. Returns the text (BOM dropped) and a note
    when the encoding was guessed; ValueError when no encoding fits (a binary file)."""
    if encoding:
        try:
            return data.decode(encoding).removeprefix("\ufeff"), None
        except UnicodeDecodeError as exc:
            raise ValueError(f"not {encoding}: byte {exc.start} cannot be decoded") from None
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec).removeprefix("\ufeff"), None
            except UnicodeDecodeError:
                break  # a BOM-like start that is not one: detect instead
    if data.count(0) <= NUL_SHARE * len(data):
        try:
            return data.decode("utf-8"), None
        except UnicodeDecodeError:
            pass
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        raise ValueError(
            "not text in any known encoding (a binary file?); name one with --encoding"
        )
    best = matches[0]
    # short texts fit many code pages equally well: among the equally good, prefer the
    # most common legacy one (Windows-1252, a superset of Latin-1's printable characters)
    tied = [
        m
        for m in matches
        if m.percent_chaos == best.percent_chaos and m.percent_coherence == best.percent_coherence
    ]
    name = str(best.encoding)
    if any(LEGACY in m.could_be_from_charset for m in tied):
        name = LEGACY
    try:
        text = data.decode(name)
    except UnicodeDecodeError:
        name, text = str(best.encoding), str(best)
    if codecs.lookup(name).name == "utf-8":  # UTF-8 after all (many NUL bytes hid it)
        return text.removeprefix("\ufeff"), None
    note = f"not UTF-8: read as {name} (detected; --encoding overrides)"
    return text.removeprefix("\ufeff"), note


def clean_text(text: str) -> tuple[str, int]:
    """``text`` without NUL and other control characters (vertical tab, form feed and
    NEL become line breaks) and lone surrogates; returns it and how many were changed."""
    if _NOT_CLEAN.isdisjoint(map(ord, set(text))):
        return text, 0
    found = {ch for ch in set(text) if ord(ch) in _NOT_CLEAN}
    return text.translate(_CLEAN), sum(text.count(ch) for ch in found)
