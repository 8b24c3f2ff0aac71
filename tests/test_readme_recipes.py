"""The README's experiment recipes (issue 32): experiments run in DVC's temporary copies (--temp, or --queue then
`dvc queue start`), each example really changes a value of params.yaml, the dry runs are scoped to what the change
affects, and the comparison fits a screen."""

from __future__ import annotations

import re
import shlex

import pytest
import yaml
from conftest import REPO

from rlvr_lib.methods import REGISTRY
from rlvr_lib.pipeline import exp_table

MISSING = object()


def readme_commands(text: str) -> list[str]:
    """The shell lines of the README's ```bash blocks, comments stripped."""
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    lines = [line.split(" #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


EXPERIMENT = ["python", "-m", "rlvr_lib.pipeline.experiment"]  # `dvc exp run --temp -s` (or --queue) of one run's


def exp_runs(commands: list[str]) -> list[list[str]]:
    """The experiments: `dvc exp run ...` and `python -m rlvr_lib.pipeline.experiment ...`, as words."""
    out = []
    for line in commands:
        words = shlex.split(line)
        if words[:3] == EXPERIMENT or ("exp" in words and "run" in words and words[words.index("exp") + 1] == "run"):
            out.append(words)
    return out


def set_params(words: list[str]) -> list[str]:
    return [words[i + 1] for i, w in enumerate(words) if w in ("-S", "--set-param")]


def lookup(mapping: dict, dotted: str):
    node = mapping
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            return MISSING
        node = node[key]
    return node


def parse_value(text: str):
    """A `-S` value as DVC writes it into params.yaml (YAML, with `1e-4` a float as in YAML 1.2)."""
    value = yaml.safe_load(text)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def unchanged_settings(commands: list[str], params: dict) -> list[str]:
    """The `-S key=value` of the commands that do not change params.yaml: the value it has, or for `+key` (a key
    params.yaml does not write) a key it does write or the method's default."""
    bad = []
    for words in exp_runs(commands):
        for setting in set_params(words):
            key, value = setting.split("=", 1)
            new = parse_value(value)
            if key.startswith("+"):
                key = key[1:]
                if lookup(params, key) is not MISSING:
                    bad.append(f"{setting}: params.yaml already has {key} (drop the +)")
                    continue
                run, name = key.split(".")[1:3]
                method = (params["methods"].get(run) or {}).get("method", run)
                default = getattr(REGISTRY[method].Config(), name, MISSING)
                if default is MISSING or default == new:
                    bad.append(f"{setting}: {method}'s default {name} is {default!r}")
            elif lookup(params, key) is MISSING or lookup(params, key) == new:
                bad.append(f"{setting}: params.yaml has {key} = {lookup(params, key)!r}")
    return bad


def unisolated_runs(commands: list[str]) -> list[str]:
    """`dvc exp run`s that would run in the workspace (neither --temp nor --queue nor a dry run)."""
    return [
        " ".join(words)
        for words in exp_runs(commands)
        if words[:3] != EXPERIMENT and not {"--temp", "--queue", "--dry"} & set(words)
    ]


def unscoped_dry_runs(commands: list[str]) -> list[str]:
    """Dry runs that would list every stage a clone lacks: no --downstream, -s or single target."""
    return [
        line
        for line in commands
        if "--dry" in line.split() and not {"--downstream", "-s", "--single-item"} & set(line.split())
    ]


@pytest.fixture(scope="module")
def commands() -> list[str]:
    return readme_commands((REPO / "README.md").read_text())


@pytest.fixture(scope="module")
def params() -> dict:
    return yaml.safe_load((REPO / "params.yaml").read_text())


def test_every_example_experiment_changes_a_value_of_params_yaml(commands, params):
    assert any(set_params(words) for words in exp_runs(commands))
    assert unchanged_settings(commands, params) == []


def test_an_example_that_sets_the_value_params_yaml_has_is_caught(params):
    lr = params["train"]["learning_rate"]
    planted = [f"dvc exp run --temp -S 'train.learning_rate={lr:g}'", "dvc exp run --queue -S '+methods.aer.tau=0.4'"]
    assert len(unchanged_settings(planted, params)) == 2


def test_experiments_run_in_dvcs_own_copies(commands):
    assert unisolated_runs(commands) == []
    in_temp = [w for w in exp_runs(commands) if "--temp" in w or (w[:3] == EXPERIMENT and "--queue" not in w)]
    assert in_temp and any("--queue" in w for w in exp_runs(commands))
    assert "dvc queue start" in commands and any(c.startswith("dvc exp branch") for c in commands)
    assert any(c.startswith("dvc exp diff") for c in commands)
    assert unisolated_runs(["dvc exp run -S 'train.learning_rate=3e-4'"]) != []  # the workspace-clobbering form


def test_the_experiment_module_runs_each_listed_stage_alone_in_dvcs_copies():
    from rlvr_lib.pipeline.experiment import command

    temp = command(["data", "report"], ["methods.aer.tau=0.6"], "x", queue=False)
    assert temp == ["dvc", "exp", "run", "--temp", "-s", "-n", "x", "-S", "methods.aer.tau=0.6", "data", "report"]
    assert command(["data"], [], None, queue=True)[3:5] == ["--queue", "-s"]


def test_dry_runs_are_scoped_to_what_the_change_affects(commands):
    dry = [c for c in commands if "--dry" in c.split()]
    assert dry and unscoped_dry_runs(commands) == []
    assert unscoped_dry_runs(["python -m rlvr_lib.pipeline.dvc_dry repro --dry paper_aer"]) != []


def test_the_comparison_fits_a_screen(commands):
    shows = [c for c in commands if c.startswith("dvc exp show")]
    assert shows and all("--keep" in c and "--drop" in c for c in shows)
    assert any(c.startswith("python -m rlvr_lib.pipeline.exp_table") for c in commands)


def test_exp_table_prints_one_row_per_experiment_and_run():
    header = [
        "Experiment",
        "rev",
        "Created",
        "reports/run_metrics/aer.json:testbed.mean@16",
        "reports/run_metrics/aer.json:entropy_retained",
        "reports/run_metrics/grpo.json:testbed.mean@16",
        "reports/run_metrics/grpo.json:entropy_retained",
        "methods.aer.tau",
    ]
    csv_text = (
        ",".join(header)
        + "\nworkspace,,,0.52111,0.41,0.548,0.31,0.4\nexp-1a2b3,,2026-11-27T10:59:25,0.6,0.5,0.548,0.31,0.6\n"
    )
    rows = exp_table.table(csv_text, ["aer", "grpo"], ["methods.aer.tau"])
    assert rows[0] == ["experiment", "run", "testbed.mean@16", "entropy_retained", "methods.aer.tau"]
    assert rows[1] == ["workspace", "aer", "0.5211", "0.41", "0.4"]
    assert rows[3] == ["exp-1a2b3 (2026-11-27 10:59)", "aer", "0.6", "0.5", "0.6"] and len(rows) == 5
    printed = exp_table.render(rows)
    assert max(len(line) for line in printed.splitlines()) < 100
    pattern = re.compile(exp_table.keep_pattern(["aer"], ["methods.aer.tau"]))
    assert [c for c in header if pattern.fullmatch(c)] == [
        header[0],
        header[1],
        header[2],
        header[3],
        header[4],
        header[7],
    ]


def test_an_experiment_adds_only_the_makers_of_cached_inputs_a_reader_lacks():
    """A study sampling `runs/x` lacks the absent model; the report reading `reports/training` (where the same train
    stage writes its uncached log) does not: on a clone it must not retrain every pair."""
    from types import SimpleNamespace as Obj

    from rlvr_lib.pipeline.experiment import lacks

    train = Obj(
        outs=[
            Obj(fs_path="/r/runs/x/seed0", use_cache=True, exists=False),
            Obj(fs_path="/r/reports/training/x/seed0/history.json", use_cache=False, exists=True),
        ]
    )
    assert lacks(Obj(deps=[Obj(fs_path="/r/runs/x")]), train)
    assert not lacks(Obj(deps=[Obj(fs_path="/r/reports/training")]), train)
    train.outs[0].exists = True
    assert not lacks(Obj(deps=[Obj(fs_path="/r/runs/x")]), train)
