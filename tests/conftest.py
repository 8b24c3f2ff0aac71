"""Shared fixtures and helpers. Test modules never import each other: what several need lives here.

Sections: "pipeline workspaces" (a small workspace with data and a base policy), "paper reports" (every paper's
report built once from synthetic outputs), "trainer runs" (a reward, a dataset and a GRPOConfig for the tiny-model
trainer tests) and "method batches" (rollout and loss batches for the method hooks, and the degenerate batches every
method must survive). Torch, TRL and datasets are imported inside
the helpers, so that collecting a torch-free test module stays torch-free.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml

if TYPE_CHECKING:
    from rlvr_lib.methods import LossBatch, Method, RolloutBatch, RolloutResult

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
sys.path.insert(0, str(TESTS))  # tests/tiny.py: the tiny character-level model for trainer tests
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# one torch thread per process (OpenMP, MKL, OpenBLAS; inherited by every subprocess a test starts): `make test` runs
# two pytest-xdist workers beside the end-to-end pipeline's single-threaded lanes on 2 cores, where a second thread
# per process only spins and waits (the tests' models are tiny), e.g. 22% more CPU time for the trainer tests alone
for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
# the longest modules (about 10 and 1.5 minutes on 2 cores) are collected first: `make test` runs two pytest-xdist
# workers with whole modules as units (--dist loadfile, in collection order), so one takes the end-to-end pipeline
# while the other runs everything else
SLOWEST_FIRST = ("test_pipeline_e2e.py", "test_smoke.py", "test_clone_workspace.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # a stable sort: each module keeps its order


# ----------------------------------------------------------------------------- testbed builds
TINY_TESTBED = {  # TestbedConfig overrides for a seconds-long base-policy build
    "n_train": 24,
    "n_eval": 8,
    "levels": (1, 2),
    "solutions_per_problem": 2,
    "vocab_size": 300,
    "hidden_size": 32,
    "num_layers": 1,
    "num_heads": 2,
    "sft_steps": 2,
    "batch_size": 8,
    "warmup_steps": 0,
}


# ----------------------------------------------------------------------------- pipeline workspaces
SMOKE_PARAMS = {
    "profile": "default",
    "seed": 0,
    "data": {"source": "testbed", "testbed": {"n_train": 32, "n_eval": 4}},
    "model": {"testbed": {"n_train": 64, "sft_steps": 200, "hidden_size": 64, "num_layers": 1}},
    "train": {
        "max_steps": 4,
        "prompts_per_step": 2,
        "num_generations": 4,
        "max_completion_length": 48,
        "learning_rate": 1e-3,
        "format_weight": 0.5,
        "save_steps": 2,
    },
    "methods": {"grpo": {}},
    "eval": {"n": 2, "max_new_tokens": 48, "n_boot": 20},
}


def _build_workspace(root: Path, sft: bool) -> Path:
    from tiny import save_tiny

    from rlvr_lib.pipeline import stages
    from rlvr_lib.workspace import layout

    root.mkdir(parents=True)
    (root / "params.yaml").write_text(yaml.safe_dump(SMOKE_PARAMS, sort_keys=False))
    cwd = os.getcwd()
    try:
        os.chdir(root)
        params = layout.load_params()
        stages.stage_data(params)
        if sft:
            stages.stage_base_model(params)
        else:
            save_tiny(root / layout.base_model_dir(params.all_seeds[0]))
    finally:
        os.chdir(cwd)
    return root


@pytest.fixture(scope="session")
def trained_workspace_template(tmp_path_factory) -> Path:
    """params.yaml, the data stage's files and a small SFT base policy whose rewards vary (about a minute to
    build, once per session)."""
    return _build_workspace(tmp_path_factory.mktemp("sft_workspace") / "repo", sft=True)


@pytest.fixture(scope="session")
def light_workspace_template(tmp_path_factory) -> Path:
    """params.yaml, the data stage's files and the tiny random model as models/base/seed0 (seconds to build)."""
    return _build_workspace(tmp_path_factory.mktemp("light_workspace") / "repo", sft=False)


def _private_copy(template: Path, tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(template, root)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def workspace(trained_workspace_template, tmp_path, monkeypatch) -> Path:
    """A private copy of the SFT workspace, made the working directory: for tests that train."""
    return _private_copy(trained_workspace_template, tmp_path, monkeypatch)


@pytest.fixture
def light_workspace(light_workspace_template, tmp_path, monkeypatch) -> Path:
    """A private copy of the light workspace, made the working directory: for tests that fail before training."""
    return _private_copy(light_workspace_template, tmp_path, monkeypatch)


@pytest.fixture
def set_params():
    """``set_params(**sections)``: overlay sections on the test params (None removes one), write ./params.yaml."""

    def write(**sections) -> Path:
        params = {k: v for k, v in {**SMOKE_PARAMS, **sections}.items() if v is not None}
        Path("params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        return Path("params.yaml")

    return write


# ----------------------------------------------------------------------------- paper reports
@pytest.fixture(scope="session")
def built_papers(tmp_path_factory) -> tuple[Path, dict, list]:
    """Every paper's report built once per test process from synthetic pipeline outputs (tests/paper_workspace.py),
    for test_papers_modules and test_figures (30-60 s each on 2 busy cores): (the workspace, {paper: (paper, README
    path)}, every figure ``plots.new_figure`` made meanwhile). The cwd and ERPO's stub are undone after the build: a
    module that reads the papers further sets them again (``paper_workspace.stub_real_files``)."""
    from paper_workspace import build_papers, build_workspace, record_figures

    with pytest.MonkeyPatch.context() as patch:
        figures = record_figures(patch)
        root = build_workspace(tmp_path_factory.mktemp("papers"))
        return root, build_papers(root, patch), figures


# ----------------------------------------------------------------------------- trainer runs
@functools.cache
def declared_claims(paper: str) -> list:
    """The claims (and parts) paper ``paper`` declares on the committed params.yaml: no results needed."""
    from rlvr_lib import papers
    from rlvr_lib.settings.config import load_params

    return [c for c, _ in papers.open_paper(paper, load_params(REPO / "params.yaml"))._claims]


def exact_match(prompts, completions, answer, **kwargs):
    return [float(c.strip().startswith(a)) for c, a in zip(completions, answer, strict=False)]


exact_match.__name__ = "accuracy"


def coin_reward(prompts, completions, **kwargs):
    """1/0 by the completion's first character (about half of the tiny alphabet): a random model's groups get
    mixed rewards, so every method's update is real (exact_match is always 0 for it)."""
    return [float(bool(c) and c[0] in "0123456789abcdefghijklmnopqrstuvwxyzABCDEF") for c in completions]


coin_reward.__name__ = "accuracy"


def dataset(n=16):
    from datasets import Dataset

    return Dataset.from_list([{"prompt": f"{i}+{i}=", "answer": str(2 * i)} for i in range(n)])


def config(tmp_path, **overrides):
    from trl import GRPOConfig

    base = dict(
        output_dir=str(tmp_path / "out"),
        use_cpu=True,
        bf16=False,
        per_device_train_batch_size=8,
        num_generations=4,
        max_completion_length=6,
        report_to=[],
        gradient_checkpointing=False,
        learning_rate=1e-3,
        seed=0,
        logging_steps=1,
        save_strategy="no",
        disable_tqdm=True,
    )
    return GRPOConfig(**{**base, **overrides})


# ----------------------------------------------------------------------------- method batches
def t(x):
    """A float64 tensor (hand-computed examples)."""
    import torch

    return torch.tensor(x, dtype=torch.float64)


def rollout_batch(
    b=16,
    t=10,
    group=4,
    seed=0,
    rewards=None,
    mask=None,
    dtype=None,
    logit_scale=1.0,
    entropy_scale=1.0,
    ref_noise=0.2,
    equal_groups=(),
) -> RolloutBatch:
    """A rollout batch of ``b`` responses in groups of ``group`` consecutive rows, ``t`` tokens, right-padded.

    Tokens are sampled from random softmax policies (``logit_scale`` sharpens them), so log-probs and entropies
    are consistent; reference log-probs are the log-probs plus ``ref_noise`` Gaussian noise. Lengths are random
    in 1..t unless ``mask`` is given; rewards random 0/1 with rows 0 and 1 set to 1 and 0 (group 0 always
    mixed) unless given; groups listed in ``equal_groups`` get reward 1 on every row. Padding positions keep
    their (meaningless) values: a method must ignore them. ``accuracy`` = rewards. ``dtype``: float32 by default.
    ``entropy_change_factors``: E_{a~pi}[(1 - pi(a))^2 (log pi(a) + H)] of each position's 12-token policy.
    """
    import torch

    from rlvr_lib.methods import RolloutBatch

    dtype = dtype or torch.float32
    g = torch.Generator().manual_seed(seed)
    logp_all = torch.log_softmax(logit_scale * torch.randn(b, t, 12, generator=g, dtype=dtype), -1)
    entropies = -(logp_all.exp() * logp_all).sum(-1) * entropy_scale
    probs = logp_all.exp()
    factors = (probs * (1 - probs) ** 2 * (logp_all + -(probs * logp_all).sum(-1, keepdim=True))).sum(-1)
    tokens = torch.multinomial(logp_all.exp().reshape(-1, 12).float(), 1, generator=g).reshape(b, t)
    logps = logp_all.gather(-1, tokens[..., None]).squeeze(-1)
    ref_logps = logps + ref_noise * torch.randn(b, t, generator=g, dtype=dtype)
    if mask is None:
        lengths = torch.randint(1, t + 1, (b,), generator=g)
        mask = (torch.arange(t)[None] < lengths[:, None]).to(dtype)
    if rewards is None:
        rewards = torch.randint(0, 2, (b,), generator=g).to(dtype)
        rewards[0], rewards[1] = 1.0, 0.0
    group_ids = torch.arange(b) // group
    rewards = rewards.to(dtype).clone()
    for k in equal_groups:
        rewards[group_ids == k] = 1.0
    return RolloutBatch(
        rewards=rewards,
        group_ids=group_ids,
        mask=mask.to(dtype),
        logps=logps,
        entropies=entropies,
        ref_logps=ref_logps,
        accuracy=rewards,
        entropy_change_factors=factors,
    )


def loss_batch(
    rb: RolloutBatch,
    result: RolloutResult,
    *,
    logps=None,
    entropies=None,
    old_logps=None,
    noise=0.0,
    seed=1,
    rows=None,
) -> LossBatch:
    """The loss-time batch of rollout ``rb`` (its rows ``rows``, all by default) after ``result``.

    Current log-probs: ``logps`` if given, else the behaviour log-probs plus ``noise`` Gaussian noise (0: strictly
    on-policy); a fresh leaf with gradient unless given. Entropies likewise (the behaviour entropies by default).
    ``old_logps``: the behaviour log-probs unless given. Normalisers count this micro-batch as the optimizer
    step's whole batch.
    """
    import torch

    from rlvr_lib.methods import LossBatch

    rows = slice(None) if rows is None else rows
    if logps is None:
        g = torch.Generator().manual_seed(seed)
        logps = (rb.logps + noise * torch.randn(rb.logps.shape, generator=g, dtype=rb.logps.dtype))[rows]
        logps = logps.clone().requires_grad_()
    if entropies is None:
        entropies = rb.entropies[rows].clone().requires_grad_()
    mask = rb.mask[rows]
    return LossBatch(
        logps=logps,
        entropies=entropies,
        old_logps=rb.logps[rows] if old_logps is None else old_logps,
        advantages=result.advantages[rows],
        mask=mask,
        num_tokens=float(mask.sum()),
        num_seqs=float(mask.shape[0]),
        max_completion_length=mask.shape[1],
        ref_logps=None if rb.ref_logps is None else rb.ref_logps[rows],
        extras={k: v[rows] for k, v in result.extras.items()},
    )


def run_method(name: str | Method, rb: RolloutBatch, hparams=None, noise=0.0):
    """rollout, loss and backward of one method on ``rb``.

    Returns (method, rollout result, loss batch, loss, metrics of the rollout and the loss together).
    """
    from rlvr_lib.methods import build_method

    method = build_method(name, hparams) if isinstance(name, str) else name
    result = method.rollout(rb)
    lb = loss_batch(rb, result, noise=noise)
    loss, metrics = method.loss(lb)
    loss.backward()
    return method, result, lb, loss, {**result.metrics, **metrics}


DEGENERATE_CASES = ("all_equal_rewards", "one_token", "masked_rows", "all_masked", "single_response_groups")


def degenerate_batch(case: str, b=8, t=6, group=4, seed=0, dtype=None) -> RolloutBatch:
    """A rollout batch every method must survive (finite advantages, loss, gradients and metrics).

    all_equal_rewards: every reward 1 (zero group std); one_token: each response one token long; masked_rows:
    rows 2 and 5 fully masked; all_masked: no completion token at all; single_response_groups: every response
    its own group (G = 1: no group statistics).
    """
    import torch

    dtype = dtype or torch.float32
    mask = torch.ones(b, t, dtype=dtype)
    rewards = None
    if case == "all_equal_rewards":
        rewards = torch.ones(b, dtype=dtype)
    elif case == "one_token":
        mask[:, 1:] = 0.0
    elif case == "masked_rows":
        mask[2] = mask[5] = 0.0
    elif case == "all_masked":
        mask.zero_()
    elif case == "single_response_groups":
        group = 1
    else:
        raise ValueError(f"unknown degenerate case {case!r}; known: {DEGENERATE_CASES}")
    return rollout_batch(b=b, t=t, group=group, seed=seed, rewards=rewards, mask=mask, dtype=dtype)
