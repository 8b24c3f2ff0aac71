"""The tuning's selection as a file: ``reports/tuning/selection.json`` (written by the ``select`` stage, read by the
tuned runs' stages and the reports) and its table, ``reports/tuning/README.md``.

``selection.json``: ``{"seeds": [...], "arms": {<arm>: {...}}}``, per arm the selected ``config`` and its
``settings``, the ``literal`` configuration, ``literal_kept``, ``no_healthy`` and the ``reason`` of
``select.Selection``, the ``run`` the tuned protocol reads (``tuned.protocol_run``: ``tuned__<arm>`` or the committed
run itself) and ``configs``: each configuration's settings, validation mean over the tuning seeds and, per seed, its
mean and health ('' when healthy, else the gate's reason).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from rlvr_lib.files.readers import read_json
from rlvr_lib.settings.config import Params
from rlvr_lib.tuning.select import Selection, ValidationRow
from rlvr_lib.tuning.space import Config, Space
from rlvr_lib.tuning.tuned import protocol_run, tuned_name

SELECTION_FILE = Path("reports/tuning/selection.json")
README_FILE = Path("reports/tuning/README.md")
RERUN = "rerun the select stage (dvc repro pipelines/tune/dvc.yaml:select)"


@dataclasses.dataclass(frozen=True)
class Selected:
    """One arm's selection read back: its configuration in today's search space and the run the tuned protocol
    reads (``tuned__<arm>``, or the arm's committed run when the settings are its own)."""

    config: Config
    run: str


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _settings(config: Config) -> dict[str, Any]:
    return {name: _plain(value) for name, value in config.values.items()}


def record(space: Space, rows: list[ValidationRow], chosen: dict[str, Selection], runs: dict[str, str]) -> dict:
    """The JSON mapping of ``selection.json``: ``chosen`` (arm -> ``select.select``'s selection) from ``rows``, and
    ``runs`` (arm -> ``tuned.protocol_run`` of its selection)."""
    by_key = {(r.arm, r.config, r.seed): r for r in rows}
    arms = {}
    for arm, configs in space.arms.items():
        sel = chosen[arm]
        listed = [
            {
                "config": c.index,
                "settings": _settings(c),
                "mean": sel.means[c.index],
                "seeds": {
                    str(s): {"mean": by_key[arm, c.index, s].validation_mean, "health": by_key[arm, c.index, s].health}
                    for s in space.seeds
                },
            }
            for c in configs
        ]
        arms[arm] = {
            "config": sel.config,
            "settings": _settings(configs[sel.config]),
            "literal": next(c.index for c in configs if c.literal),
            "literal_kept": sel.literal_kept,
            "no_healthy": sel.no_healthy,
            "reason": sel.reason,
            "run": runs[arm],
            "configs": listed,
        }
    return {"seeds": list(space.seeds), "arms": arms}


def dumps(mapping: dict) -> str:
    return json.dumps(mapping, indent=1) + "\n"


def read(path: Path, params: Params, raw: dict[str, Any], space: Space) -> dict[str, Selected]:
    """Every arm's selection from ``path``, checked against today's search space (``space``, from ``params`` and
    ``raw``: params.yaml's mapping, its profile applied); every error names the file and the field."""
    data = read_json(path, dict, hint=f"the tuning's selection; {RERUN}")
    arms = data.get("arms")
    if not isinstance(arms, dict):
        raise ValueError(f"{path}: 'arms' must map each tuning arm to its selection, got {arms!r}")
    unknown = sorted(set(arms) - set(space.arms))
    if unknown:
        raise ValueError(f"{path}: arms.{unknown[0]}: not an arm of params.yaml tuning.arms; {RERUN}")
    missing = [arm for arm in space.arms if arm not in arms]
    if missing:
        raise ValueError(f"{path}: arms: no selection for {', '.join(missing)} (params.yaml tuning.arms); {RERUN}")
    out = {}
    for arm, configs in space.arms.items():
        entry, where = arms[arm], f"{path}: arms.{arm}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: must be a mapping, got {entry!r}")
        k = entry.get("config")
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(configs):
            raise ValueError(f"{where}.config: {k!r} is not a configuration of the arm (0..{len(configs) - 1})")
        if entry.get("settings") != _settings(configs[k]):
            raise ValueError(
                f"{where}.settings: {entry.get('settings')!r} are not configuration {k} of params.yaml "
                f"tuning.arms.{arm} ({configs[k].label()}): the search space changed since the selection; {RERUN}"
            )
        run = entry.get("run")
        expected = protocol_run(params, raw, configs[k])
        if run not in (arm, tuned_name(arm)) or run != expected:
            raise ValueError(f"{where}.run: {run!r}, where params.yaml now makes {expected!r}; {RERUN}")
        out[arm] = Selected(configs[k], run)
    return out


def _cell(entry: dict, arm_entry: dict) -> str:
    failed = any(seed["health"] for seed in entry["seeds"].values())
    text = f"{entry['mean']:.3f}" + (" x" if failed else "") + (" L" if entry["config"] == arm_entry["literal"] else "")
    return f"**{text}**" if entry["config"] == arm_entry["config"] else text


def readme(mapping: dict) -> str:
    """``reports/tuning/README.md``: per arm its configurations' validation means, the selection and why."""
    arms = mapping["arms"]
    width = max(len(a["configs"]) for a in arms.values())
    head = ["arm", *map(str, range(width)), "selected", "why", "tuned protocol reads"]
    lines = [
        "# Tuning: the selection (issue 41)",
        "",
        "Generated by the `select` stage (`pipelines/tune/dvc.yaml`) from the tuning runs' validation evaluations; "
        'the rule: docs/assumptions.md, "Tuning: the equal budget". Each cell: a configuration\'s validation mean@n '
        f"over the tuning seeds {mapping['seeds']}; **bold**: selected; L: the literal transfer; x: unhealthy in a "
        "seed (the gate's reason in `selection.json`). The configurations' settings: `python -m rlvr_lib tune --dry`.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for arm, entry in arms.items():
        cells = [_cell(c, entry) for c in entry["configs"]] + [""] * (width - len(entry["configs"]))
        chosen = next(c for c in entry["configs"] if c["config"] == entry["config"])
        settings = ", ".join(f"{k}={v}" for k, v in chosen["settings"].items())
        run = f"`{entry['run']}`" + (" (the committed run: same settings)" if entry["run"] == arm else "")
        lines.append(
            f"| {arm} | " + " | ".join([*cells, f"{entry['config']} ({settings})", entry["reason"], run]) + " |"
        )
    return "\n".join(lines) + "\n"
