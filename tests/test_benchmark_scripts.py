"""Every script in benchmarks/ runs as its docstring says (issue 32): each one's cheapest form, in a fresh process
with the environment's Python and no virtual environment on PATH (as `.venv/bin/python benchmarks/<script>` from a
fresh clone after `make install`). Scripts that need a base policy and the generated data get a tiny model and the
data stage's files; those that need a GPU, a browser or a many-core host only show their usage."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO, SMOKE_PARAMS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(sys.executable).with_name("dvc").exists(), reason="needs the project's environment"),
]
BENCHMARKS = REPO / "benchmarks"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A tiny save_pretrained model and the smoke data stage's files."""
    from tiny import save_tiny

    from rlvr_lib.pipeline import stages
    from rlvr_lib.workspace import layout

    root = tmp_path_factory.mktemp("bench")
    (root / "params.yaml").write_text(yaml.safe_dump(SMOKE_PARAMS, sort_keys=False))
    cwd = os.getcwd()
    try:
        os.chdir(root)
        stages.stage_data(layout.load_params())
    finally:
        os.chdir(cwd)
    save_tiny(root / "model")
    return root


def script_env() -> dict[str, str]:
    """No virtual environment on PATH (the scripts must find DVC themselves); this checkout's rlvr_lib first."""
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != venv_bin)
    return {**os.environ, "PATH": path, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}


def run(args: list[str], cwd: Path = REPO, timeout: int = 600) -> str:
    done = subprocess.run(
        [sys.executable, *args], cwd=cwd, env=script_env(), capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def cheapest(name: str, ws: Path, tmp: Path) -> list[str]:
    """The cheapest form of each Python script's documented command."""
    model, data = str(ws / "model"), ws / "data/generated"
    tiny_train = ["--prompts", "2", "--generations", "2", "--max-completion-length", "8"]
    return {
        "collapse_speed.py": ["--model", model, "--data", str(data / "train.jsonl"), "--set", "max_steps=3"]
        + ["--set", "steps_per_generation=1", "--set", "prompts_per_step=2", "--set", "num_generations=2"]
        + ["--set", "max_completion_length=8"],
        "compare_machines.py": ["reports", "reports", "--runs", "grpo"],
        "compare_repros.py": [".", "."],
        "dvc_overhead.py": ["--runs", "2", "--pairs", "1", "--repeats", "1"],
        "entropy_by_position.py": ["--model", model, "--data", str(data / "eval_testbed.jsonl"), "--samples", "1"]
        + ["--max-new-tokens", "8"],
        "method_overhead.py": ["--model", model, "--rounds", "1", "--methods", "grpo", "erpo", *tiny_train],
        "profile_memory.py": [],
        "repro_cost.py": ["--root", "."],
        "verdict_changes.py": ["--old", "HEAD"],
    }[name]


RUN_HERE = (
    "collapse_speed.py",
    "compare_machines.py",
    "compare_repros.py",
    "dvc_overhead.py",
    "entropy_by_position.py",
    "method_overhead.py",
    "profile_memory.py",
    "repro_cost.py",
    "verdict_changes.py",
)
# the rest: a GPU (gpu_step.py), other machines' outputs or long runs; their usage at least must work
USAGE_ONLY = (
    "dist_equality.py",
    "gpu_fsdp_equality.py",
    "gpu_step.py",
    "host_merge.py",
    "stage_startup.py",
    "step_profile.py",
    "testbed_properties.py",
    "train_pairs_logs.py",
)


def test_every_script_is_covered():
    scripts = {p.name for p in BENCHMARKS.glob("*.py")}
    assert scripts == set(RUN_HERE) | set(USAGE_ONLY) | {"contamination.py"}


@pytest.mark.parametrize("name", RUN_HERE)
def test_the_cheapest_form_of_each_script_runs(name, workspace, tmp_path):
    out = run([str(BENCHMARKS / name), *cheapest(name, workspace, tmp_path)])
    assert out.strip(), name


@pytest.mark.parametrize("name", USAGE_ONLY)
def test_the_other_scripts_show_their_usage(name):
    assert "usage:" in run([str(BENCHMARKS / name), "--help"])


def test_testbed_properties_base_stage_on_a_tiny_budget(tmp_path):
    out = tmp_path / "tb"
    tiny = ["--n-eval", "4", "--n", "2", "--testbed", "sft_steps=5", "--train", "max_steps=1", "--stages", "base"]
    run([str(BENCHMARKS / "testbed_properties.py"), "--out", str(out), *tiny])
    assert (out / "base.json").is_file()


@pytest.mark.skipif(
    (REPO / "data/generated/train.jsonl").exists(), reason="the pipeline outputs are here: it would run"
)
def test_step_profile_on_a_clone_names_the_stages_to_run_first():
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "step_profile.py"), "--max-steps", "2", "--no-eval", "--no-startup"],
        env=script_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode != 0 and "run `dvc repro data base_model@" in done.stderr
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


def test_dist_equality_one_process_equals_itself(tmp_path):
    run([str(BENCHMARKS / "dist_equality.py"), "run", "--out", str(tmp_path / "1"), "--cpu"])
    run([str(BENCHMARKS / "dist_equality.py"), "compare", str(tmp_path / "1"), str(tmp_path / "1")])


def test_contamination_runs_on_the_shared_data_or_names_what_is_missing(tmp_path):
    shared = Path(os.environ.get("RLVR_DATA_ROOT", REPO.parent / "shared" / "data"))
    if shared.is_dir():
        assert "| training set |" in run([str(BENCHMARKS / "contamination.py"), str(shared)])
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "contamination.py"), str(tmp_path)],
        env=script_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "Traceback" not in done.stderr


@pytest.mark.parametrize("script", sorted(p.name for p in BENCHMARKS.glob("*.sh")))
def test_the_shell_scripts_parse(script):
    assert subprocess.run(["bash", "-n", str(BENCHMARKS / script)]).returncode == 0


def test_pairs_brought_home_drop_their_earlier_stage_notebooks(tmp_path):
    """Issue 42: a pair retrained by train_pairs.sh keeps no executed notebook of an earlier run of its stages."""
    spec = importlib.util.spec_from_file_location("train_pairs_logs", BENCHMARKS / "train_pairs_logs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("train_grpo_seed1", "eval_grpo_seed1", "train_grpo_seed2", "eval_grpo_onpolicy_seed1"):
        (tmp_path / f"{name}.ipynb").write_text("{}")
    gone = module.drop_stage_notebooks("grpo", 1, tmp_path)
    assert sorted(p.name for p in gone) == ["eval_grpo_seed1.ipynb", "train_grpo_seed1.ipynb"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval_grpo_onpolicy_seed1.ipynb", "train_grpo_seed2.ipynb"]
