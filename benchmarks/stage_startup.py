"""Start-up of one stage process: papermill + kernel, and the imports of the train and eval stages, before/after.

A stage is ``papermill`` executing a notebook in a fresh kernel, whose first cells import ``rlvr_lib.pipeline.stages``
and what the stage function imports. This script times, alternated and repeated:

- ``papermill`` on a one-cell notebook (``1``): papermill's own start-up plus a kernel's, the part no import cut
  touches;
- a fresh interpreter importing what the eval stage imports (``rlvr_lib.pipeline.stages``, torch, transformers,
  ``rlvr_lib.eval``) and what the train stage imports (``rlvr_lib.pipeline.stages``, ``rlvr_lib.training.train``), once
  with this checkout's ``rlvr_lib`` and once with that of ``--before`` (a git revision, exported to a scratch folder).

    python benchmarks/stage_startup.py [--before REV] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IMPORTS = {
    "eval stage imports": "from rlvr_lib import pipeline; import torch, transformers; import rlvr_lib.eval",
    "train stage imports": "from rlvr_lib import pipeline; import rlvr_lib.training.train",
}
NOTEBOOK = {
    "cells": [{"cell_type": "code", "metadata": {}, "source": "1", "outputs": [], "execution_count": None}],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def export(rev: str, into: Path) -> Path:
    """``rlvr_lib`` of git revision ``rev`` under ``into`` (a folder to put first on sys.path)."""
    archive = subprocess.run(["git", "archive", rev, "rlvr_lib"], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="cf48370", help="git revision of the 'before' rlvr_lib")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="stage_startup_"))
    try:
        (tmp / "before").mkdir()
        trees = {"before": export(args.before, tmp / "before"), "after": REPO}
        notebook = tmp / "one_cell.ipynb"
        notebook.write_text(json.dumps(NOTEBOOK))
        papermill = [sys.executable, "-m", "papermill", "--no-progress-bar", "-k", "python3", str(notebook)]
        times: dict[str, list[float]] = {}
        for r in range(args.repeats):
            times.setdefault("papermill + kernel, one-cell notebook", []).append(
                timed([*papermill, str(tmp / "out.ipynb")], tmp)
            )
            for what, code in IMPORTS.items():
                for side in ("before", "after") if r % 2 == 0 else ("after", "before"):
                    # cwd first on sys.path (python -c): that tree's rlvr_lib, not the installed one
                    times.setdefault(f"{what}, {side}", []).append(timed([sys.executable, "-c", code], trees[side]))
        print(f"seconds, median [min, max] of {args.repeats}; before = rlvr_lib of {args.before}")
        for what, values in times.items():
            print(f"{what:>40}: {statistics.median(values):.2f} [{min(values):.2f}, {max(values):.2f}]")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
