"""params.yaml ``papers:`` (rlvr_lib.settings.papers) and the paper stages of dvc.yaml
(rlvr_lib.pipeline.paper_stages)."""

from __future__ import annotations

import copy

import pytest
import yaml
from conftest import REPO

from rlvr_lib.papers.framework import sampling
from rlvr_lib.pipeline import paper_stages as dvc_stages
from rlvr_lib.settings.config import parse_params, read_yaml
from rlvr_lib.settings.papers import ALL_PAPERS, BASE_RUN, paper_runs, parse_papers, sampled_policies

RAW = read_yaml(REPO / "params.yaml")
RUNS = list(RAW["methods"])


def test_committed_papers_section_is_valid_and_names_existing_runs():
    params = parse_params(copy.deepcopy(RAW))
    assert params.papers is not None
    for name in ALL_PAPERS:
        runs = paper_runs(params.papers.paper(name))
        assert runs and all(r == BASE_RUN or r in params.runs for r in runs), name


def test_every_run_of_methods_is_used_by_some_paper():
    params = parse_params(copy.deepcopy(RAW))
    used = {r for name in ALL_PAPERS for r in paper_runs(params.papers.paper(name))}
    assert set(params.runs) - used == set()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p: p["erpo"]["runs"].update(grpo="grpo_typo"), "papers.erpo.runs.grpo: unknown run 'grpo_typo'"),
        (
            lambda p: p["tepo"]["runs"]["baselines"].append("nope"),
            "papers.tepo.runs.baselines[4]: unknown run 'nope'",
        ),
        (lambda p: p["erpo"].update(pass_at_k="2"), "papers.erpo.pass_at_k must be a list"),
        (lambda p: p["aer"].update(tau=0.3), "unknown key(s) ['papers.aer.tau']"),
        (lambda p: p.update(grpo={}), "unknown key(s) ['papers.grpo']"),
        (
            lambda p: p["cw_grpo"]["runs"]["grpo_checkpoints"].pop(),
            "papers.cw_grpo.runs.grpo_checkpoints has 2 runs, paper_steps has 3 checkpoints",
        ),
        (
            lambda p: p["aer"]["pass_at_k"]["runs"].append("opefo"),
            "papers.aer.pass_at_k.runs[4]: 'opefo' is not one of papers.aer.runs",
        ),
        (lambda p: p["erpo"]["perturbation"].update(frac=0.0), "papers.erpo.perturbation.frac must lie in (0.0, 1.0]"),
        (lambda p: p["erpo"]["perturbation"].update(policy="x"), "papers.erpo.perturbation.policy: unknown run 'x'"),
        (lambda p: p["summary"].update(papers=["erpo", "ppo"]), "papers.summary.papers has unknown paper(s) ['ppo']"),
        (
            lambda p: p["tepo"].update(convergence_metric="accuracy"),
            "unknown key(s) ['papers.tepo.convergence_metric']",
        ),
    ],
)
def test_bad_entries_name_their_key_path(edit, message):
    papers = copy.deepcopy(RAW["papers"])
    edit(papers)
    with pytest.raises(ValueError) as err:
        parse_papers(papers, RUNS)
    assert message in str(err.value)


def test_a_bad_papers_entry_stops_check_params_with_its_path():
    raw = copy.deepcopy(RAW)
    raw["papers"]["opefo"]["runs"]["opefo"] = "opefo_typo"
    with pytest.raises(ValueError, match=r"papers\.opefo\.runs\.opefo: unknown run 'opefo_typo'"):
        parse_params(raw)


@pytest.mark.parametrize(
    ("paper", "role", "run", "message"),
    [
        ("erpo", "erpo", "grpo", "papers.erpo.runs.erpo: run 'grpo' trains method 'grpo', but this role needs a run"),
        ("aer", "tau_sweep", ["aer_tau_0_2", "dapo"], "papers.aer.runs.tau_sweep[1]: run 'dapo' trains method 'dapo'"),
        ("opefo", "static_lambda", "base", "papers.opefo.runs.static_lambda: the untrained 'base' policy cannot"),
    ],
)
def test_a_role_bound_to_a_run_of_another_method_is_named(paper, role, run, message):
    """Issue 21 D: the notebook would fail with an AttributeError on the other method's logs or settings."""
    raw = copy.deepcopy(RAW)
    raw["papers"][paper]["runs"][role] = run
    with pytest.raises(ValueError) as err:
        parse_params(raw)
    assert message in str(err.value)


def test_papers_errors_of_the_smoke_profile_carry_its_prefix():
    raw = copy.deepcopy(RAW)
    raw["smoke"]["papers"]["aer"]["pass_at_k"]["n"] = 0
    with pytest.raises(ValueError, match=r"smoke\.papers\.aer\.pass_at_k\.n must be >= 1"):
        parse_params(raw)


def test_params_without_papers_has_none():
    raw = copy.deepcopy(RAW)
    del raw["papers"]
    del raw["smoke"]["papers"]
    assert parse_params(raw).papers is None


def test_defaults_equal_the_committed_entries():
    """The dataclass defaults document the committed choice; params.yaml states it explicitly."""
    assert parse_papers(RAW["papers"], RUNS) == parse_papers({}, RUNS)


# ----------------------------------------------------------------------------- dvc.yaml
def test_dvc_paper_stages_equal_what_papers_declares():
    assert dvc_stages.differences(REPO / "params.yaml", REPO / "dvc.yaml") == []


def test_dvc_paper_stages_text_is_the_generated_block():
    text = (REPO / "dvc.yaml").read_text()
    block = dvc_stages.render(dvc_stages.stages(REPO / "params.yaml"))
    assert dvc_stages.replace_block(text, block) == text


def test_paper_stage_deps_are_exactly_the_reports_of_its_runs():
    dvc = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    papers = parse_papers(RAW["papers"], RUNS)
    for name in ALL_PAPERS:
        settings = papers.paper(name)
        runs = paper_runs(settings)
        deps = dvc[f"paper_{name}"]["deps"]
        reports = {d for d in deps if d.startswith(("reports/eval/", "reports/training/"))}
        want = {f"reports/eval/{r}" for r in runs} | {f"reports/training/{r}" for r in runs if r != BASE_RUN}
        assert reports == want, name
        assert not [d for d in deps if d.startswith(("runs/", "models/", "data/"))], name  # a clone has none
        studies = [s for s, (paper, _) in sampling.STUDIES.items() if paper == name]
        assert {d for d in deps if d.startswith("reports/samples/")} == {f"reports/samples/{s}.json" for s in studies}
        for study in studies:  # the sampling stage reads exactly the models the paper's settings name
            models = {d for d in dvc[f"sample_{study}"]["deps"] if d.startswith(("runs/", "models/"))}
            assert models == {"models/base" if r == BASE_RUN else f"runs/{r}" for r in sampled_policies(settings)}
            assert dvc[f"sample_{study}"]["outs"][0] == {
                f"reports/samples/{study}.json": {"cache": False, "persist": True}
            }
        params = dvc[f"paper_{name}"]["params"]
        assert f"papers.{name}" in params
        assert {p for p in params if p.startswith("methods.")} == {f"methods.{r}" for r in runs if r != BASE_RUN}
        assert dvc[f"paper_{name}"]["outs"][0] == {f"reports/papers/{name}": {"cache": False, "persist": True}}
    assert {d for d in dvc["paper_summary"]["deps"] if d.startswith("reports/papers/")} == {
        f"reports/papers/{p}" for p in papers.summary.papers
    }


def test_a_changed_run_list_makes_dvc_stale(tmp_path):
    raw = copy.deepcopy(RAW)
    raw["papers"]["erpo"]["runs"]["ablations"] = raw["papers"]["erpo"]["runs"]["ablations"][:1]
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump(raw, sort_keys=False))
    diff = dvc_stages.differences(params, REPO / "dvc.yaml")
    assert any("paper_erpo.deps" in line and "reports/eval/erpo_no_bucket_norm" in line for line in diff)
    dvc = tmp_path / "dvc.yaml"
    dvc.write_text((REPO / "dvc.yaml").read_text())
    assert dvc_stages.main(["--params", str(params), "--dvc", str(dvc)]) == 0
    assert dvc_stages.main(["--params", str(params), "--dvc", str(dvc), "--check"]) == 0
    assert "reports/eval/erpo_no_bucket_norm" not in dvc.read_text()


@pytest.mark.parametrize(
    ("study", "n_seeds", "want"), [("erpo_perturbation", 5, [0, 1, 2, 3, 4]), ("aer_pass_at_k", 2, [0, 1])]
)
def test_a_studys_n_seeds_picks_that_many_of_its_runs_seeds(study, n_seeds, want):
    """n_seeds counts the sampled runs' own seeds (5 for ERPO's GRPO), not the top-level `seeds` (3)."""
    raw = copy.deepcopy(RAW)
    paper, field = sampling.STUDIES[study]
    raw["papers"][paper][field]["n_seeds"] = n_seeds
    params = parse_params(raw)
    assert sampling.study_seeds(study, params) == want
    assert sampling.recorded_settings(study, params)["seeds"] == want
    raw["seeds"] = [0]  # a run's own seeds decide, whatever the top-level list
    assert sampling.study_seeds(study, parse_params(raw)) == want


def test_a_study_samples_only_seeds_every_sampled_run_has():
    raw = copy.deepcopy(RAW)
    raw["papers"]["aer"]["pass_at_k"]["n_seeds"] = 5
    raw["methods"]["aer"]["seeds"] = [0, 2, 4]
    assert sampling.study_seeds("aer_pass_at_k", parse_params(raw)) == [0, 2, 4]
