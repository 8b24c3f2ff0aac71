"""What a stage process imports: the eval path pulls in neither sympy (math-verify) nor pandas."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_eval_stage_imports_neither_sympy_nor_pandas():
    heavy = "{'sympy', 'pandas', 'math_verify'}"
    code = f"import sys, rlvr_lib.pipeline.stages, rlvr_lib.eval; print(sorted({heavy} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_paper_stages_read_results_without_transformers():
    """A paper stage reads result files: opening every paper (as its notebook's first cells do) loads no model stack
    (transformers and its imports take seconds of every paper stage's and paper notebook's start)."""
    code = (
        "import sys\nfrom rlvr_lib import papers\nfrom rlvr_lib.workspace import layout\n"
        "params = layout.enter_repo('params.yaml')\n"
        "[papers.open_paper(p, params) for p in ('erpo', 'cw_grpo', 'tepo', 'opefo', 'aer', 'summary')]\n"
        "print('transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
