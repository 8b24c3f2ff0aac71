r"""Verbatim quotes: a claim's words must be the paper's own, found in ``../shared/papers/<paper>.txt``.

Matching ignores whitespace differences (line breaks of the text file, runs of spaces) and Markdown's backslash
escapes of punctuation (the text files write "large\-magnitude", "\+2\.7"); a quote not found so is also looked for
in the text with its PDF line numbers dropped and the words its line breaks hyphenated joined again ("base- / 100
lines" -> "baselines"), and nothing else; "..." (or "…") marks an elision: the pieces between elisions must all
appear in the paper, in order.
"""

from __future__ import annotations

import re
from pathlib import Path

ELLIPSIS = re.compile(r"\s*(?:(?<!\\)\.\.\.|…)\s*")
ESCAPE = re.compile(r"\\([^\w\s])")
LINE_NUMBER = re.compile(r"(?m)^(?:- )?\d{3} (?:• )?")  # the PDF's line numbers at the start of a text line
BROKEN_WORD = re.compile(r"(\w)-[ \t]*\n\s*(\w)")  # a word hyphenated across a line break


def normalise(text: str) -> str:
    """``text`` without Markdown's backslash escapes of punctuation, every run of whitespace one space, stripped."""
    return " ".join(ESCAPE.sub(r"\1", text).split())


def rejoined(text: str) -> str:
    """``text`` without the PDF's line numbers and with the words hyphenated across its line breaks joined."""
    return BROKEN_WORD.sub(r"\1\2", LINE_NUMBER.sub("", text))


def find_quote(quote: str, paper_text: str) -> list[str]:
    """The pieces of ``quote`` (split at elisions) not found in ``paper_text`` in order, as it is or rejoined
    (``rejoined``); [] when it is verbatim."""
    missing = _missing(quote, paper_text)
    return missing and _missing(quote, rejoined(paper_text))


def _missing(quote: str, paper_text: str) -> list[str]:
    haystack = normalise(paper_text)
    pieces = [normalise(p) for p in ELLIPSIS.split(quote) if normalise(p)]
    if not pieces:
        return [quote]
    missing, start = [], 0
    for piece in pieces:
        at = haystack.find(piece, start)
        if at < 0:
            missing.append(piece)
        else:
            start = at + len(piece)
    return missing


def check_quotes(quotes: dict[str, str], paper_path: Path) -> dict[str, list[str]]:
    """{claim key: missing pieces} of every quote of ``quotes`` ({key: quote}) not verbatim in ``paper_path``."""
    text = paper_path.read_text(encoding="utf-8")
    return {key: missing for key, quote in quotes.items() if (missing := find_quote(quote, text))}
