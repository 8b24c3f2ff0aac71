"""The closest valid name to a mistyped one, for error messages: ``unknown run 'grop' (did you mean 'grpo'?)``."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: object, valid: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` (or ``'x' or 'y'``) for the valid names closest to ``name``; ``""`` if none is
    close (difflib's ratio 0.7 or more)."""
    close = difflib.get_close_matches(str(name), [str(v) for v in valid], n=2, cutoff=0.7)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
