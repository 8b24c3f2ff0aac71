"""The stages of issue 41's tuning (the validation split's: ``validation_stage``): each configuration's training and
validation evaluation, through ``stages.stage_train`` / ``stages.stage_eval`` unchanged in what they compute.

A configuration trains as run ``tune__<arm>__<k>``: the arm's ``methods`` entry with the configuration's settings
applied and the tuning seeds (``rlvr_lib.tuning.space.Config.entry``), added to the settings as one more run, so
that its training is a normal run's (``runs/tune__<arm>__<k>/seed<N>``, ``reports/training/tune__<arm>__<k>/``). It
is evaluated on the validation split only, into ``reports/tuning/<arm>/<k>/seed<N>/``; the base policy of seed N
into ``reports/tuning/base/seed<N>/`` (the health gate's reference). Their stages: ``rlvr_lib.pipeline.tune_dvc``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from rlvr_lib.pipeline import stages
from rlvr_lib.settings.config import Params, parse_run, read_yaml
from rlvr_lib.tuning import validation
from rlvr_lib.tuning.space import Config, Space, check_run, parse_space, selected_profile
from rlvr_lib.workspace.layout import PIPELINES_DIR, REPORTS_DIR, seed_folder

TUNING_REPORTS = REPORTS_DIR / "tuning"
TUNE_PIPELINES = PIPELINES_DIR / "tune"
BASE = "base"


def space_of(params: Params, params_path: str = "params.yaml") -> tuple[Space, dict[str, Any]]:
    """The checked search space and the params mapping it was read from (the selected profile's)."""
    raw = selected_profile(read_yaml(params_path))
    return parse_space(raw, params), raw


def arm_dvc_file(arm: str) -> Path:
    return TUNE_PIPELINES / arm / "dvc.yaml"


def eval_dir(arm: str, config: int | None, seed: int) -> Path:
    """``reports/tuning/<arm>/<k>/seed<N>`` (``arm`` ``base``, ``config`` None: the base policy's)."""
    parts = [BASE] if arm == BASE else [arm, str(config)]
    return TUNING_REPORTS.joinpath(*parts, seed_folder(seed))


def with_config(params: Params, raw: dict[str, Any], config: Config, seeds: list[int]) -> Params:
    """``params`` with the configuration's run added (built and checked as any ``methods`` entry)."""
    shared = {"seed": params.train.seed, **(raw.get("train") or {})}
    spec = parse_run(config.run, config.entry(raw["methods"], seeds), shared, check_run)
    return dataclasses.replace(params, runs={**params.runs, config.run: spec})


def find_config(space: Space, arm: str, k: int) -> Config:
    if arm not in space.arms or not 0 <= k < len(space.arms[arm]):
        raise ValueError(f"no tuning configuration {k} of arm '{arm}' (params.yaml tuning.arms; 0..{space.budget - 1})")
    return space.arms[arm][k]


def stage_tune_train(params: Params, arm: str, k: int, seed: int) -> list[dict[str, float]]:
    """Train configuration ``k`` of ``arm`` with tuning seed ``seed`` (``stages.stage_train``)."""
    space, raw = space_of(params, params.file)
    config = find_config(space, arm, k)
    tuned = with_config(params, raw, config, space.seeds)
    return stages.stage_train(tuned, config.run, seed, dvc_stage=(arm_dvc_file(arm), f"train_{k}"))


def stage_tune_eval(params: Params, arm: str, k: int | None, seed: int) -> dict[str, dict[str, Any]]:
    """Evaluate configuration ``k`` of ``arm`` (``arm`` ``base``: the base policy) with seed ``seed`` on the
    validation split only (``stages.stage_eval``)."""
    if params.data.source != "testbed":
        raise ValueError(validation.FILES_SOURCE)
    space, raw = space_of(params, params.file)
    sets = {validation.VALIDATION_SET: Path(validation.VALIDATION_FILE)}
    if arm == BASE:
        dvc_stage = (TUNE_PIPELINES / "dvc.yaml", "eval_base")
        return stages.stage_eval(params, BASE, seed, sets=sets, out=eval_dir(BASE, None, seed), dvc_stage=dvc_stage)
    config = find_config(space, arm, k)
    tuned = with_config(params, raw, config, space.seeds)
    dvc_stage = (arm_dvc_file(arm), f"eval_{k}")
    return stages.stage_eval(tuned, config.run, seed, sets=sets, out=eval_dir(arm, k, seed), dvc_stage=dvc_stage)
