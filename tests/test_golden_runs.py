"""The golden runs (``rlvr_lib.pipeline.golden``): made from scratch, they equal the references committed under
tests/golden/ byte for byte (timings aside), on the machine kind that made them; a planted one-ulp change to the loss
is reported; ``compare`` names every difference and the command line's exit codes say what was found."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from rlvr_lib.pipeline import golden

PLANTED_RUN = "grpo"  # the cheapest golden run (its method's loss is wrapped by the planted test)


# ----------------------------------------------------------------------------- the golden runs, made from scratch
@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """The golden workspace: params, data and the base policy, built once for the module."""
    return golden.prepare(tmp_path_factory.mktemp("golden") / "workspace")


@pytest.fixture(scope="module")
def made(workspace):
    return {run: golden.train_and_record(workspace, run) for run in golden.GOLDEN_RUNS}


@pytest.mark.slow
def test_golden_runs_equal_the_committed_references(made):
    refs, saved = golden.load_references()
    assert golden.setup_difference(saved) is None, golden.setup_difference(saved)
    flat = [run for run, std in golden.reward_variation(made).items() if not std > 0]
    assert not flat, f"no group with correct and wrong answers in {flat}: the updates would not be real"
    differences = golden.compare(made, refs)
    other_kind = golden.machine_difference(saved)
    if differences and other_kind:
        pytest.skip(f"{len(differences)} differences from tests/golden/, inconclusive: {other_kind}")
    assert not differences, (
        f"{len(differences)} differences from tests/golden/ (a change to training code altered a golden run: if it "
        "is meant to, retrain the affected committed results and run `python -m rlvr_lib.pipeline.golden write`):\n"
        + "\n".join(differences[: golden.MAX_SHOWN])
    )


def _one_ulp_up(loss):
    """``loss`` with its value one float32 ulp up and its gradient unchanged."""
    import torch

    step = torch.nextafter(loss.detach(), torch.tensor(math.inf, dtype=loss.dtype)) - loss.detach()
    return loss + step


def _scaled(loss):
    """``loss`` times 1 + 2**-23 (float32's ulp at 1): its value and its gradient change by 1-2 ulps."""
    return loss * (1 + 2**-23)


@pytest.mark.slow
@pytest.mark.parametrize("change", [_one_ulp_up, _scaled], ids=["value_one_ulp", "scaled_1_plus_2e-23"])
def test_a_one_ulp_change_to_the_loss_is_caught(workspace, made, monkeypatch, change):
    from rlvr_lib.methods.registry import REGISTRY
    from rlvr_lib.workspace.layout import load_params, run_spec

    method = REGISTRY[run_spec(load_params(workspace / "params.yaml"), PLANTED_RUN).method]
    loss = method.loss

    def planted(self, batch):
        value, metrics = loss(self, batch)
        return change(value), metrics

    monkeypatch.setattr(method, "loss", planted)
    record = golden.train_and_record(workspace, PLANTED_RUN)
    monkeypatch.undo()
    differences = golden.compare({PLANTED_RUN: record}, {PLANTED_RUN: made[PLANTED_RUN]})
    assert all(d.startswith(f"{PLANTED_RUN}: ") for d in differences), differences[:5]
    history = [d for d in differences if d.startswith(f"{PLANTED_RUN}: history.json")]
    assert history, f"a planted change to the loss of {PLANTED_RUN} was not found: {differences[:5]}"
    if change is _one_ulp_up:  # nothing but the logged losses changes, each by exactly one float32 ulp
        rows = made[PLANTED_RUN]["history"]
        assert len(differences) == len(history) == len(rows), differences
        assert all("'loss': made" in d for d in history), history
        for row, planted_row in zip(rows, record["history"], strict=True):
            assert np.nextafter(np.float32(row["loss"]), np.float32(math.inf)) == np.float32(planted_row["loss"])


# ----------------------------------------------------------------------------- compare, machine kind, command line
def _record(**history_row):
    return {
        "run": "grpo",
        "seed": 0,
        "history": [{"loss": 0.5, "step": 1, **history_row}],
        "eval": {"results.json": {"testbed": {"metrics": {"pass@1": {"value": 0.25}}}}},
        "metrics": {"testbed": {"pass@1": 0.25}},
        "final_weights_sha256": "ab",
    }


def test_compare_names_run_file_step_key_and_both_values():
    ref = {"grpo": _record()}
    assert golden.compare(copy.deepcopy(ref), ref) == []
    made = {"grpo": _record(loss=float(np.nextafter(0.5, 1.0)))}
    made["grpo"]["eval"]["results.json"]["testbed"]["metrics"]["pass@1"]["value"] = 0.5
    made["grpo"]["history"][0]["new"] = 1
    rest = golden.compare(made, ref)
    assert rest[0] == (
        "grpo: history.json step 1 (row 0) 'loss': made 0.5000000000000001 (0x1.0000000000001p-1), reference 0.5 "
        "(0x1.0000000000000p-1)"
    )
    assert rest[1] == "grpo: history.json step 1 (row 0) 'new': new key (made 1)"
    assert rest[2].startswith("grpo: results.json 'testbed/metrics/pass@1/value': made 0.5 (")
    assert len(rest) == 3
    assert golden.compare({}, ref) == ["grpo: a reference, but not made"]
    fewer = {"grpo": {**_record(), "history": []}}
    assert golden.compare(fewer, ref) == ["grpo: history.json has 0 rows, the reference 1"]
    signed = {"grpo": _record(loss=-0.0)}
    assert golden.compare(signed, {"grpo": _record(loss=0.0)})  # bit for bit: -0.0 is not 0.0
    assert golden.compare({"grpo": _record(loss=1)}, {"grpo": _record(loss=1.0)})  # an int is not a float
    assert not golden.compare({"grpo": _record(loss=math.nan)}, {"grpo": _record(loss=math.nan)})


def test_timing_keys_are_left_out_of_a_record():
    row = {"loss": 0.1, "step_time": 2.0, "timing/generation_s": 0.3, "train_samples_per_second": 9.0, "step": 1}
    assert golden.without_timings({"history": [row]}) == {"history": [{"loss": 0.1, "step": 1}]}


def test_another_machine_kind_is_named_with_both_values():
    here = golden.machine_kind()
    assert golden.machine_difference({"machine": here}, here) is None
    other = {**here, "cpu_model": "Some Other CPU", "cores": 999}
    note = golden.machine_difference({"machine": other}, here)
    assert note and "Some Other CPU" in note and here["cpu_model"] in note and "cores" not in note
    assert "torch" in golden.machine_difference({"machine": {**here, "torch": "0.0"}}, here)


def test_check_exit_codes(monkeypatch, capsys):
    refs, saved = golden.load_references()
    monkeypatch.setattr(golden, "build", lambda: copy.deepcopy(refs))
    monkeypatch.setattr(golden, "machine_kind", lambda: saved["machine"])
    assert golden.main(["check"]) == 0
    changed = copy.deepcopy(refs)
    row = changed[PLANTED_RUN]["history"][0]
    row["loss"] = float(np.nextafter(row["loss"], math.inf))
    monkeypatch.setattr(golden, "build", lambda: copy.deepcopy(changed))
    assert golden.main(["check"]) == 1
    err = capsys.readouterr().err
    assert f"{PLANTED_RUN}: history.json step 1 (row 0) 'loss'" in err and "golden write" in err
    monkeypatch.setattr(golden, "machine_kind", lambda: {**saved["machine"], "cpu_model": "Some Other CPU"})
    assert golden.main(["check"]) == 3
    assert "inconclusive" in capsys.readouterr().err


def test_references_are_small_and_record_their_machine_kind():
    folder = golden.golden_dir()
    files = sorted(folder.glob("*.json"))
    assert {p.stem for p in files} == {*golden.GOLDEN_RUNS, "machine", "code"}
    assert sum(p.stat().st_size for p in files) < 400_000
    code = json.loads((folder / golden.CODE_FILE).read_text())  # the code that made them, file by file
    assert "rlvr_lib/pipeline/stages.py" in code and "notebooks/train.ipynb" in code
    _, saved = golden.load_references()
    for key in ("cpu_model", "cpu_id", "cpu_capability", "cores", "platform", "python", "torch", "transformers", "trl"):
        assert saved["machine"][key], key
    assert saved["date"] and golden.setup_difference(saved) is None
