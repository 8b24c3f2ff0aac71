"""Markdown tables, PNG bytes and the training histories read back, shared by the paper reports and the main page."""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from rlvr_lib.files.readers import read_json

HISTORY_FILE = "history.json"


RESULTS_FILE = "results.json"


DPI = 120


def _history_frame(run: str, seed: int, path: Path) -> pd.DataFrame:
    rows = read_json(path, list, hint=f"(re)run the train stage of run '{run}', seed {seed}")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) and "step" in r for r in rows):
        raise ValueError(f"{path}: expected a non-empty list of per-step dicts with a 'step' key")
    return pd.DataFrame(rows).sort_values("step", kind="stable").assign(run=run, seed=seed)


def load_histories(run_dirs: Mapping[str, Mapping[int, str | os.PathLike]]) -> pd.DataFrame:
    """Read ``<dir>/history.json`` of each run and training seed (``{run: {seed: dir}}``): one row per run x seed x
    logged step, ``run`` and ``seed`` first; keys a run does not log are NaN. Raises FileNotFoundError naming a
    missing file."""
    frames = [
        _history_frame(run, seed, Path(d) / HISTORY_FILE) for run, dirs in run_dirs.items() for seed, d in dirs.items()
    ]
    if not frames:
        return pd.DataFrame(columns=["run", "seed", "step"])
    df = pd.concat(frames, ignore_index=True)
    return df[["run", "seed", *(c for c in df.columns if c not in ("run", "seed"))]]


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured markdown table of ``frame``'s cells as text."""

    def row(cells: Iterable[Any]) -> str:
        return "| " + " | ".join(str(c).replace("|", r"\|") for c in cells) + " |"

    lines = [row(frame.columns), row("---" for _ in frame.columns), *(row(r) for r in frame.itertuples(index=False))]
    return "\n".join(lines) + "\n"


def png_bytes(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()
