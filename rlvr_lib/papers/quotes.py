r"""Verbatim quotes: a claim's words must be the paper's own, found in ``../shared/papers/<paper>.txt``.

Matching ignores whitespace differences (line breaks of the text file, runs of spaces) and Markdown's backslash
escapes of punctuation (the text files write "large\-magnitude", "\+2\.7"), and nothing else; "..." (or "…") marks
an elision: the pieces between elisions must all appear in the paper, in order.
"""

from __future__ import annotations

import re
from pathlib import Path

ELLIPSIS = re.compile(r"\s*(?:(?<!\\)\.\.\.|…)\s*")
ESCAPE = re.compile(r"\\([^\w\s])")


def normalise(text: str) -> str:
    """``text`` without Markdown's backslash escapes of punctuation, every run of whitespace one space, stripped."""
    return " ".join(ESCAPE.sub(r"\1", text).split())


def find_quote(quote: str, paper_text: str) -> list[str]:
    """The pieces of ``quote`` (split at elisions) not found in ``paper_text`` in order; [] when it is verbatim."""
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
