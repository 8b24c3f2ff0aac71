"""The ``select`` stage of issue 41's tuning (``pipelines/tune/dvc.yaml``): every arm's validation results read
(``tuning.table.validation_rows``), the selection rule applied unchanged (``tuning.select.select``), and the
selection written as ``reports/tuning/selection.json`` with its table ``reports/tuning/README.md``
(``tuning.selection_file``), from which the tuned runs are declared (``tune_dvc --tuned``)."""

from __future__ import annotations

from pathlib import Path

from rlvr_lib.files.atomic import write_atomic
from rlvr_lib.settings.config import Params, read_yaml
from rlvr_lib.tuning import selection_file
from rlvr_lib.tuning.select import select
from rlvr_lib.tuning.space import parse_space, selected_profile
from rlvr_lib.tuning.table import validation_rows
from rlvr_lib.tuning.tuned import protocol_run


def stage_tune_select(params: Params, root: Path = Path(".")) -> dict[str, str]:
    """Write ``root``'s ``reports/tuning/selection.json`` and ``README.md``; returns arm -> the run the tuned
    protocol reads (``tuned__<arm>``, or the committed run when the selection has its settings)."""
    raw = selected_profile(read_yaml(root / params.file))
    space = parse_space(raw, params)
    rows = validation_rows(root, params, space)
    chosen = select(rows, space.seeds)
    runs = {arm: protocol_run(params, raw, space.arms[arm][s.config]) for arm, s in chosen.items()}
    mapping = selection_file.record(space, rows, chosen, runs)
    write_atomic(root / selection_file.SELECTION_FILE, selection_file.dumps(mapping))
    write_atomic(root / selection_file.README_FILE, selection_file.readme(mapping))
    return runs
