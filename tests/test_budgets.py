"""The README's Budgets are computed (issue 42): `rlvr_lib.pipeline.budgets` reads the measurement records of
docs/budgets.yaml, checks them, and estimates `make repro` from params.yaml's pairs and their measured times."""

from __future__ import annotations

import pytest
import yaml
from conftest import REPO

from rlvr_lib.pipeline import budgets


def test_durations_read_as_people_write_them():
    assert budgets.duration(1566) == "26 min 06 s"
    assert budgets.duration(600) == "10 min"
    assert budgets.duration(17) == "17 s"
    assert budgets.duration(1.19) == "1.19 s"
    assert budgets.duration(3900) == "1 h 05 min"
    assert budgets.duration(2808, coarse=True) == "47 min"


def test_a_log_gives_each_pairs_last_time(tmp_path):
    log = tmp_path / "pairs.log"
    log.write_text("10:00:00 grpo seed 0 exit 0 in 90 s\n10:00:01 grpo seed 1 exit 124 in 3600 s\n"
                   "10:00:02 grpo seed 0 exit 0 in 80 s\nall 2 pairs in 100 s on 2 lanes\n")  # fmt: skip
    assert budgets.read_log(log) == {("grpo", 0): 80}  # a failed pair is no time


def _root_with(tmp_path, edit):
    data = yaml.safe_load((REPO / budgets.DATA).read_text())
    edit(data)
    (tmp_path / "docs").mkdir()
    (tmp_path / budgets.DATA).write_text(yaml.safe_dump(data))
    return tmp_path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["records"]["test"].pop("date"), "records.test: needs `date`"),
        (lambda d: d["records"]["test"].update(text="26 min"), "records.test: needs exactly one of `seconds`"),
        (lambda d: d["records"]["test"].update(recorded="abc"), "records.test: needs exactly one of `commit`"),
        (lambda d: d["records"]["test"].update(machine="laptop"), "records.test: machine 'laptop' is not in"),
        (lambda d: d["records"]["test"].update(secs=1), "records.test: unknown field(s) ['secs']"),
    ],
)
def test_a_bad_record_names_itself_and_the_field(tmp_path, edit, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        budgets.load(_root_with(tmp_path, edit))


def test_the_estimates_follow_the_protocols_pairs():
    found, rates = budgets.estimates(REPO)
    by_name = {e.name: e for e in found}
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    pairs = sum(len((e or {}).get("seeds") or params["seeds"]) for e in params["methods"].values())
    assert by_name["whole"].pairs == pairs == len(rates.pair)
    assert by_name["summary"].pairs == pairs  # the summary builds the five papers it gathers
    for e in found:
        low, mid, high = e.seconds
        assert low <= mid <= high
    # the whole run is its pairs over the lanes plus the fixed stages: more than any paper's
    assert by_name["whole"].seconds[1] > max(e.seconds[1] for e in found if e.name != "whole")
    assert rates.calibrated >= 10 and 0 < rates.ratio[1] < 1  # the 2-core machine's lane beats a loaded host's
