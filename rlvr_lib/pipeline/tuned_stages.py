"""The tuned protocol's runs (issue 41): run ``tuned__<arm>`` trained by ``stages.stage_train`` and evaluated on the
evaluation split by ``stages.stage_eval``, both unchanged, at the arm's own seeds, with the settings of the arm's
configuration that ``reports/tuning/selection.json`` names (``tuning.tuned``). Its stages:
``pipelines/tuned__<arm>/dvc.yaml`` (``tune_dvc --tuned``), whose deps name the selection file.

An arm whose selection has its committed run's settings has no tuned run: the tuned protocol reads the committed run
(``tuning.tuned.protocol_run``), and asking to train one is an error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlvr_lib.pipeline import stages
from rlvr_lib.settings.config import Params, read_yaml
from rlvr_lib.settings.names import did_you_mean
from rlvr_lib.tuning import selection_file
from rlvr_lib.tuning.space import parse_space, selected_profile
from rlvr_lib.tuning.tuned import with_tuned


def selections(params: Params, root: Path = Path(".")) -> tuple[dict[str, selection_file.Selected], dict[str, Any]]:
    """Every arm's selection read from ``root``'s selection file, checked against params.yaml; and the params
    mapping (its profile applied)."""
    raw = selected_profile(read_yaml(root / params.file))
    space = parse_space(raw, params)
    return selection_file.read(root / selection_file.SELECTION_FILE, params, raw, space), raw


def tuned_params(params: Params, arm: str, root: Path = Path(".")) -> tuple[Params, str]:
    """``params`` with arm ``arm``'s tuned run added, and its name; an error for an arm that has none."""
    chosen, raw = selections(params, root)
    if arm not in chosen:
        raise ValueError(f"no tuning arm '{arm}' (params.yaml tuning.arms){did_you_mean(arm, chosen)}")
    selected = chosen[arm]
    if selected.run == arm:
        raise ValueError(
            f"{selection_file.SELECTION_FILE}: arms.{arm}.run is '{arm}': the selection has the committed run's "
            "settings, and the tuned protocol reads that run; there is no tuned run to train"
        )
    return with_tuned(params, raw, [selected.config]), selected.run


def protocol_params(params: Params, root: Path = Path(".")) -> Params:
    """``params`` with every tuned run of the selection added (the lane driver's ``tuned__<arm>:<seed>`` pairs)."""
    chosen, raw = selections(params, root)
    return with_tuned(params, raw, [s.config for s in chosen.values()])


def stage_tuned_train(params: Params, arm: str, seed: int) -> list[dict[str, float]]:
    """Train arm ``arm``'s tuned run with training seed ``seed``."""
    tuned, run = tuned_params(params, arm)
    return stages.stage_train(tuned, run, seed)


def stage_tuned_eval(params: Params, arm: str, seed: int) -> dict[str, dict[str, Any]]:
    """Evaluate arm ``arm``'s tuned run with seed ``seed`` on the evaluation split, at the shared decoding and at
    the decodings of the papers reading the arm (``tuning.tuned.tuned_papers``)."""
    tuned, run = tuned_params(params, arm)
    return stages.stage_eval(tuned, run, seed)
