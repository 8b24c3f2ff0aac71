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
