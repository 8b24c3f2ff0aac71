"""Advantages and method state computed with 2 processes equal those with 1 process (issue 11).

Runs benchmarks/dist_equality.py on the CPU with torch.distributed's gloo backend (torchrun, 2 processes);
docs/gpu.md has the same check under `accelerate launch` on two GPUs (NCCL).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "dist_equality.py"
TORCHRUN = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or shutil.which("torchrun")


def run(args, nproc: int):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    cmd = (
        [sys.executable, str(SCRIPT), *args]
        if nproc == 1
        else [TORCHRUN, "--nproc_per_node", str(nproc), str(SCRIPT), *args]
    )
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc.stdout


@pytest.mark.skipif(TORCHRUN is None, reason="torchrun not found next to the interpreter")
def test_two_processes_equal_one(tmp_path):
    run(["run", "--out", str(tmp_path / "1"), "--cpu"], 1)
    run(["run", "--out", str(tmp_path / "2"), "--cpu"], 2)
    two = json.loads((tmp_path / "2" / "equality.json").read_text())
    assert two["processes"] == 2
    assert two["results"]["aer"][-1]["state"]["alpha"] > 0  # the state did move, so equal states mean something
    report = run(["compare", str(tmp_path / "1"), str(tmp_path / "2"), "--tol", "1e-5"], 1)
    assert report.strip().endswith("PASS"), report


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (GPU-only check; docs/gpu.md runs it)")
def test_bf16_training_step_on_gpu(tmp_path):
    from tiny import save_tiny

    from rlvr_lib.settings.config import TrainConfig
    from rlvr_lib.training.train import build_trainer, train_method

    model_dir = save_tiny(tmp_path / "tiny")
    records = [{"prompt": f"{i}+{i}=", "answer": str(2 * i)} for i in range(8)]
    cfg = TrainConfig(max_steps=2, prompts_per_step=2, num_generations=4, max_completion_length=8, bf16=True)
    trainer = build_trainer(model_dir, "grpo", {}, records, cfg, tmp_path / "out")
    history = train_method(trainer, tmp_path / "out")
    assert len(history) == 2 and (tmp_path / "out" / "final" / "config.json").exists()
