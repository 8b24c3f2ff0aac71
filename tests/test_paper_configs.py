"""configs/<paper>.yaml equal the tables of docs/paper_configs.md, key by key, and load as params files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from rlvr_lib.settings.config import load_params
from rlvr_lib.training.train import grpo_config

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "paper_configs.md"
PAPERS = ("erpo", "cw_grpo", "tepo", "opefo", "aer")
ROW = re.compile(r"^\| `([^`]+)` \| `(.+)` \| (.+) \|$")


def doc_tables() -> dict[str, dict[str, tuple[object, str]]]:
    """paper -> {dotted key: (value, source)} from the markdown tables (one per '## ...: `configs/x.yaml`')."""
    tables: dict[str, dict[str, tuple[object, str]]] = {}
    current = None
    for line in DOC.read_text().splitlines():
        if line.startswith("## "):  # a paper's table, or another section (no rows of any paper)
            heading = re.match(r"^## .*`configs/(\w+)\.yaml`", line)
            current = tables.setdefault(heading.group(1), {}) if heading else None
            continue
        row = ROW.match(line)
        if row and current is not None:
            key, value, source = row.groups()
            assert key not in current, f"{key} listed twice"
            current[key] = (json.loads(value), source.strip())
    return tables


def flatten(d: dict, prefix: str = "") -> dict[str, object]:
    out = {}
    for key, value in d.items():
        path = f"{prefix}{key}"
        if (
            isinstance(value, dict)
            and value
            and not path.endswith(("eval_limits", "per_benchmark"))
            and not re.fullmatch(r"methods\.\w+\.train", path)
        ):
            out.update(flatten(value, path + "."))
        else:
            out[path] = value
    return out


def test_every_paper_has_a_table():
    assert sorted(doc_tables()) == sorted(PAPERS)


@pytest.mark.parametrize("paper", PAPERS)
def test_profile_equals_doc_table(paper):
    table = doc_tables()[paper]
    profile = flatten(yaml.safe_load((ROOT / "configs" / f"{paper}.yaml").read_text()))
    assert sorted(profile) == sorted(table), "keys differ between the profile and its table"
    for key, (value, source) in table.items():
        assert profile[key] == value, f"{paper}: {key} is {profile[key]!r} in the profile, {value!r} in the doc"
        if source.lower().startswith("ours"):
            assert len(source) > len("ours: ") + 10, f"{paper}: {key} is ours without a reason"
        else:
            assert re.search(r"sec\.|table|App\.|eq\.|fig", source), f"{paper}: {key} cites no place in the paper"


@pytest.mark.parametrize("paper", PAPERS)
def test_profile_is_a_valid_params_file(paper):
    params = load_params(ROOT / "configs" / f"{paper}.yaml")
    assert params.data.source == "files" and params.model.path
    for run in params.runs.values():
        cfg = run.train
        responses = cfg.prompts_per_step * cfg.num_generations
        assert responses % cfg.gradient_accumulation_steps == 0
        spg = cfg.steps_per_generation or cfg.gradient_accumulation_steps
        assert (responses // cfg.gradient_accumulation_steps * spg) % cfg.num_generations == 0  # whole groups


def test_batch_shapes_match_the_papers():
    """The mappings of docs/paper_configs.md, computed from the loaded profiles."""

    def shape(paper, run):
        cfg = load_params(ROOT / "configs" / f"{paper}.yaml").runs[run].train
        spg = cfg.steps_per_generation or cfg.gradient_accumulation_steps
        per_device = cfg.prompts_per_step * cfg.num_generations // cfg.gradient_accumulation_steps
        prompts_per_rollout = per_device * spg // cfg.num_generations
        updates = spg * cfg.num_iterations / cfg.gradient_accumulation_steps
        return per_device, prompts_per_rollout, updates

    assert shape("erpo", "erpo") == (16, 16, 1)  # global batch 16 completions, 16 prompts per step
    assert shape("cw_grpo", "cw_grpo") == (12, 4, 1)  # batch 12, grad-accum 4, G 12
    assert shape("tepo", "tepo") == (16, 64, 8)  # 64 prompts per rollout, 8 updates
    assert shape("opefo", "opefo") == (32, 32, 1)  # 32 prompts, strictly on-policy
    assert shape("opefo", "grpo")[1:] == (32, 8)  # GRPO baseline: 8 updates per batch
    assert shape("aer", "aer")[1:] == (128, 4)  # 128 per rollout, mini-batch 32


def test_grpo_config_of_a_gpu_profile_needs_cuda(tmp_path):
    import torch

    cfg = load_params(ROOT / "configs" / "erpo.yaml").runs["erpo"].train
    if torch.cuda.is_available():
        pytest.skip("GPU present: the CPU-only refusal is not exercised")
    with pytest.raises(ValueError, match="bf16 needs a CUDA GPU"):
        grpo_config(cfg, tmp_path)
