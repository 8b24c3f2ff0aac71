"""A mistyped name gets the closest valid one in its error (issue 42): a run (`python -m rlvr_lib train`), a paper
(`make repro PAPER=`, `open_paper`, params.yaml's papers), a method, a run a paper names, a params.yaml key."""

from __future__ import annotations

import pytest
import yaml
from conftest import REPO

from rlvr_lib import __main__ as cli
from rlvr_lib import papers
from rlvr_lib.methods.registry import build_method, method_class
from rlvr_lib.settings.config import TrainConfig, load_params
from rlvr_lib.settings.names import did_you_mean
from rlvr_lib.settings.schema import build


def test_the_closest_names_or_nothing():
    assert did_you_mean("grop", ["grpo", "dapo", "gspo"]) == " (did you mean 'grpo'?)"
    assert (
        did_you_mean("aer_tau_0_7", ["aer_tau_0_6", "aer_tau_0_8", "aer"])
        == " (did you mean 'aer_tau_0_8' or 'aer_tau_0_6'?)"
    )
    assert did_you_mean("erp", ["erpo", "aer"]) == " (did you mean 'erpo'?)"
    assert did_you_mean("zzzz", ["grpo", "dapo"]) == ""  # nothing close: no guess


def test_a_mistyped_method_and_key():
    with pytest.raises(ValueError, match=r"unknown method 'dapoo' \(did you mean 'dapo'"):
        method_class("dapoo")
    with pytest.raises(ValueError, match=r"methods.x: unknown method 'cw_grp' \(did you mean 'cw_grpo'"):
        build_method("cw_grp", {}, path="methods.x")
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['train.learnig_rate'\]; valid: .*; "
                       r"'train.learnig_rate' \(did you mean 'learning_rate'\?\)$"):  # fmt: skip
        build(TrainConfig, {"learnig_rate": 1e-4}, "train")


def test_a_mistyped_paper():
    with pytest.raises(ValueError, match=r"unknown paper 'cwgrpo' \(did you mean 'cw_grpo'\?\)"):
        papers.open_paper("cwgrpo", None)
    params = load_params(REPO / "params.yaml")
    with pytest.raises(ValueError, match=r"unknown paper 'opef' \(did you mean 'opefo'\?\)"):
        params.papers.paper("opef")


def test_a_mistyped_run_on_the_command_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    assert cli.main(["train", "grpo_onpolcy"]) != 0
    assert "run 'grpo_onpolcy' is not an entry of params.yaml 'methods' (did you mean 'grpo_onpolicy'" in (
        capsys.readouterr().err
    )


def test_a_mistyped_run_in_a_paper(tmp_path):
    raw = yaml.safe_load((REPO / "params.yaml").read_text())
    raw["papers"]["erpo"]["runs"]["grpo"] = "grpo_erpo_dta"
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    with pytest.raises(ValueError, match=r"papers.erpo.runs.grpo: unknown run 'grpo_erpo_dta' \(did you mean "
                       r"'grpo_erpo_data'"):  # fmt: skip
        load_params(tmp_path / "params.yaml")
