"""The ``validation_data`` stage (root dvc.yaml): issue 41's validation split, ``data/validation/validation.jsonl``,
disjoint by content from ``data/generated``'s training and evaluation sets and the SFT problems
(``rlvr_lib.tuning.validation``)."""

from __future__ import annotations

from rlvr_lib.files.atomic import publish, staging_dir, write_atomic, write_jsonl_atomic
from rlvr_lib.settings.config import Params, read_yaml
from rlvr_lib.tuning import validation
from rlvr_lib.workspace.layout import eval_sets, training_records


def stage_validation_data(params: Params, params_path: str = "params.yaml") -> dict[str, int]:
    """Write ``data/validation/validation.jsonl`` (``rlvr_lib.tuning.validation``); returns its row count by level.
    With ``data.source: files`` there is none: the folder holds a README saying why, and the tuning stages refuse."""
    if params.data.source != "testbed":  # nothing to draw: say so in the output, the tuning stages refuse
        with staging_dir(".", "validation_data") as staged:
            write_atomic(staged / "README.md", f"# No validation split\n\n{validation.FILES_SOURCE}.\n")
            publish({staged: validation.VALIDATION_DIR})
        return {}
    raw = read_yaml(params_path)
    others = {"train": training_records(), **{f"eval_{k}": v for k, v in eval_sets().items()}}
    others["sft"] = [{"prompt": p} for p in validation.sft_prompts(params)]
    rows = validation.validation_records(params, validation.validation_size(raw), others)
    with staging_dir(".", "validation_data") as staged:
        write_jsonl_atomic(staged / "validation.jsonl", rows)
        publish({staged: validation.VALIDATION_DIR})
    return {f"level {level}": sum(r["level"] == level for r in rows) for level in sorted({r["level"] for r in rows})}
