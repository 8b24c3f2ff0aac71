"""`make smoke` (issue 32): its reduced protocol and its scratch copy. The build itself (the whole pipeline at smoke
sizes in a scratch copy, every paper stage, the workspace left as it was) is the end-to-end module's one build
(tests/test_pipeline_e2e.py, `test_make_smoke_builds_the_reduced_protocol_in_its_copy_and_leaves_the_...`)."""

from __future__ import annotations

import pytest
import yaml
from conftest import REPO

from rlvr_lib.pipeline import smoke
from rlvr_lib.settings.config import parse_params
from rlvr_lib.settings.papers import ALL_PAPERS, paper_runs


def committed_params() -> dict:
    return yaml.safe_load((REPO / "params.yaml").read_text())


def test_the_smoke_protocol_is_a_handful_of_runs_that_every_paper_reads():
    reduced = smoke.smoke_params(committed_params())
    assert reduced["profile"] == "smoke" and reduced["seeds"] == [0, 1]
    assert list(reduced["methods"]) == list(smoke.SMOKE_RUNS) and len(smoke.SMOKE_RUNS) <= 6
    assert all("seeds" not in entry for entry in reduced["methods"].values())
    params = parse_params(reduced)  # valid: every paper's runs are among the kept
    for paper in ALL_PAPERS:
        named = paper_runs(params.papers.paper(paper), trained_only=True)
        assert named and set(named) <= set(smoke.SMOKE_RUNS), paper
    # the sampled studies read kept runs too: ERPO's fig. 1(b) perturbs a stand-in on GRPO's set (the ERPO set)
    policy = params.papers.erpo.perturbation.policy
    assert policy in smoke.SMOKE_RUNS and params.runs[policy].train_data == "erpo"
    # each paper's own method trains on its own set in the smoke protocol
    assert params.runs["erpo_erpo_data"].train_data == "erpo" and params.runs["tepo_tepo_data"].train_data == "tepo"


def test_readme_step_3_states_the_default_plan():
    """README step 3 documents plain `make smoke`; the e2e build runs one seed (issue 42), so the default plan's
    sizes are checked here against the README's words."""
    readme = (REPO / "README.md").read_text()
    assert f"`make smoke` runs a reduced protocol: {len(smoke.SMOKE_RUNS)} runs x {len(smoke.DEFAULT_SEEDS)} seeds" in (
        readme
    )
    assert smoke.DEFAULT_SEEDS == (0, 1)


def test_each_smoke_seed_gets_its_own_base_policy_and_training_seed(tmp_path):
    """The two-seed checks the one-seed e2e build cannot make (issue 42): per seed, the base policy's model
    initialisation and SFT follow that seed while task and tokenizer follow the top-level seed (the build itself:
    tests/test_testbed.py's policy-seed test), and each run's settings differ only in their seed, which TRL's
    trainer receives as its seed and data seed."""
    import dataclasses

    from rlvr_lib.training.train import grpo_config

    params = parse_params(smoke.smoke_params(committed_params()))
    first, second = smoke.DEFAULT_SEEDS
    builds = [params.testbed_build(seed) for seed in smoke.DEFAULT_SEEDS]
    assert [b.policy_seed for b in builds] == [first, second] and builds[0].seed == builds[1].seed == params.seed
    assert dataclasses.replace(builds[0], policy_seed=second) == builds[1]
    for run in smoke.SMOKE_RUNS:
        cfgs = [params.train_config(run, seed) for seed in smoke.DEFAULT_SEEDS]
        assert [c.seed for c in cfgs] == [first, second] and dataclasses.replace(cfgs[0], seed=second) == cfgs[1], run
        trl = [grpo_config(c, tmp_path / run) for c in cfgs]
        assert [(t.seed, t.data_seed) for t in trl] == [(first, first), (second, second)], run


def test_the_copy_leaves_out_the_committed_results_and_refuses_a_folder_it_did_not_make(tmp_path):
    assert smoke.copied("rlvr_lib/pipeline/smoke.py") and smoke.copied("params.yaml")
    assert not smoke.copied("reports/README.md") and not smoke.copied("dvc.lock")
    assert not smoke.copied("pipelines/grpo/dvc.lock")
    (tmp_path / "mine").mkdir()
    with pytest.raises(SystemExit, match="is not a smoke copy"):
        smoke.make_copy(REPO, tmp_path / "mine")
    with pytest.raises(SystemExit):
        smoke.main(["--dir", str(REPO / "smoke_here"), "--repo", str(REPO)])
