"""The numbers README.md and docs/testbed.md quote are those of their sources (issue 32): each sits in a generated
block that `python -m rlvr_lib.pipeline.doc_numbers` writes from reports/ and params.yaml, and the committed text is
what it writes. A changed report or a hand-edited number is caught."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from conftest import REPO

from rlvr_lib.pipeline import doc_numbers

SOURCES = ("params.yaml", "reports/testbed", "reports/data_filters", "reports/plots", "reports/tables",
           "docs/budgets.yaml", "benchmarks/repro_results", *doc_numbers.DOCS)  # fmt: skip
LINKED = ("reports/training",)  # read only, large: linked into the copy


def test_the_committed_numbers_are_what_their_sources_give():
    assert doc_numbers.differences(REPO) == [], (
        "run `python -m rlvr_lib.pipeline.doc_numbers` and commit README.md, docs/"
    )


def test_every_block_is_used_and_the_counts_follow_params_yaml():
    text = "".join((REPO / doc).read_text() for doc in doc_numbers.DOCS)
    used = {m.group("name") for m in doc_numbers.BLOCK.finditer(text)}
    assert used == set(doc_numbers.BLOCKS)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    pairs = sum(len((e or {}).get("seeds") or params["seeds"]) for e in params["methods"].values())
    assert f"{len(params['methods'])} runs and {pairs} (run, seed) pairs" in (REPO / "README.md").read_text()


@pytest.fixture
def copy_root(tmp_path):
    for rel in SOURCES:
        source, target = REPO / rel, tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, target)
    for rel in LINKED:
        (tmp_path / rel).symlink_to(REPO / rel, target_is_directory=True)
    return tmp_path


def test_a_hand_edited_number_is_caught(copy_root):
    readme = copy_root / "README.md"
    text = readme.read_text()
    match = next(m for m in doc_numbers.BLOCK.finditer(text) if m.group("name") == "testbed-grpo")
    edited = match.group("body").replace("0.18", "0.19", 1)
    assert edited != match.group("body")
    readme.write_text(text.replace(match.group("body"), edited))
    assert doc_numbers.differences(copy_root) == ["README.md: block 'testbed-grpo' differs from its sources"]
    assert doc_numbers.main(["--root", str(copy_root), "--check"]) == 1
    doc_numbers.main(["--root", str(copy_root)])  # the generator puts it back
    assert readme.read_text() == text


def test_a_regenerated_report_is_caught(copy_root):
    path = copy_root / "reports/testbed/properties.json"
    props = json.loads(path.read_text())
    props["grpo"]["mean@64"]["value"] += 0.1
    path.write_text(json.dumps(props))
    stale = doc_numbers.differences(copy_root)
    assert "README.md: block 'testbed-grpo' differs from its sources" in stale
    assert "docs/testbed.md: block 'testbed-properties' differs from its sources" in stale


def test_a_changed_protocol_is_caught(copy_root):
    params = yaml.safe_load((copy_root / "params.yaml").read_text())
    params["methods"]["grpo_extra"] = {"method": "grpo"}
    (copy_root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    stale = doc_numbers.differences(copy_root)
    assert "README.md: block 'protocol' differs from its sources" in stale
    assert "README.md: block 'budgets' differs from its sources" in stale  # 3 more pairs, not trained yet


def test_an_updated_measurement_is_caught(copy_root):
    path = copy_root / "docs/budgets.yaml"
    data = yaml.safe_load(path.read_text())
    data["records"]["test"]["seconds"] = 1400
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert doc_numbers.differences(copy_root) == ["README.md: block 'budgets' differs from its sources"]
    doc_numbers.main(["--root", str(copy_root)])
    assert "| 23 min 20 s; pytest" in (copy_root / "README.md").read_text()


def test_a_new_pair_time_moves_the_estimates(copy_root):
    log = copy_root / "benchmarks/repro_results/pairs_round4/call7_two_core_to_host.log"
    log.write_text(log.read_text() + "23:59:59 grpo seed 0 exit 0 in 5000 s\n")  # grpo seed 0 retrained, slowly
    stale = doc_numbers.differences(copy_root)
    assert "README.md: block 'budgets' differs from its sources" in stale
    assert "docs/budgets.md: block 'budgets-estimate' differs from its sources" in stale


def test_an_inline_block_stays_on_one_line():
    text = "Size: <!-- generated:protocol -->old<!-- /generated:protocol -->\n"
    new, changed = doc_numbers.rewrite(text, REPO)
    assert changed == ["protocol"] and new.count("\n") == 1 and "(run, seed) pairs" in new
