"""The paper and report notebooks, whose executed copies are read as results, draw no progress bar and no tqdm
warning (review 2, item 14)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
QUIET_NOTEBOOKS = [*sorted((ROOT / "notebooks" / "papers").glob("*.ipynb")), ROOT / "notebooks" / "report.ipynb"]
BAR = "import tqdm\nfor _ in tqdm.tqdm(range(3), desc='evaluating'): pass\n"


@pytest.mark.parametrize("path", QUIET_NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_silences_progress_bars_before_any_import(path):
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    sources = ["".join(c["source"]) for c in cells]
    assert "parameters" in cells[0]["metadata"].get("tags", []), path
    assert "silence_progress_bars()" in sources[1], f"{path}: the cell after the parameters must silence the bars"


@pytest.mark.parametrize("silenced", [True, False])
def test_silence_progress_bars_leaves_stderr_empty(silenced):
    call = "from rlvr_lib.training.progress import silence_progress_bars\nsilence_progress_bars()\n" if silenced else ""
    result = subprocess.run([sys.executable, "-c", call + BAR], cwd=ROOT, capture_output=True, text=True, check=True)
    assert ("evaluating" in result.stderr) != silenced, result.stderr
