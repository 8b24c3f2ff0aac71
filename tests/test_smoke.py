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


def test_the_copy_leaves_out_the_committed_results_and_refuses_a_folder_it_did_not_make(tmp_path):
    assert smoke.copied("rlvr_lib/pipeline/smoke.py") and smoke.copied("params.yaml")
    assert not smoke.copied("reports/README.md") and not smoke.copied("dvc.lock")
    assert not smoke.copied("pipelines/grpo/dvc.lock")
    (tmp_path / "mine").mkdir()
    with pytest.raises(SystemExit, match="is not a smoke copy"):
        smoke.make_copy(REPO, tmp_path / "mine")
    with pytest.raises(SystemExit):
        smoke.main(["--dir", str(REPO / "smoke_here"), "--repo", str(REPO)])
