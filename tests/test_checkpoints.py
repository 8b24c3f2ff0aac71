"""Checkpoints are complete or not used: a broken one is named, removed, and the previous complete one resumed; a
full disk is named as such; a partial run whose fingerprint is unreadable starts afresh, saying so."""

from __future__ import annotations

import errno
import json

import pytest

from rlvr_lib.files import checkpoints
from rlvr_lib.pipeline import stages
from rlvr_lib.workspace import layout


def sealed_checkpoint(run_dir, step: int) -> None:
    import torch
    from safetensors.torch import save_file

    staged = run_dir / checkpoints.SAVING_DIR / f"checkpoint-{step}"
    staged.mkdir(parents=True)
    torch.save({"state": {0: {"exp_avg": torch.arange(64.0)}}}, staged / "optimizer.pt")
    save_file({"w": torch.arange(256.0)}, staged / "model.safetensors")
    (staged / "method_state.json").write_text('{"method": "grpo", "state": {}}')
    checkpoints.seal_and_publish(staged, run_dir / f"checkpoint-{step}")


def damage_in_place(path, offset: int, length: int = 16) -> None:
    """Overwrite ``length`` bytes of ``path`` at ``offset`` (negative: from the end), its size unchanged."""
    data = bytearray(path.read_bytes())
    start = offset % len(data)
    data[start : start + length] = bytes(255 - b for b in data[start : start + length])
    path.write_bytes(bytes(data))


def test_sealed_checkpoint_is_complete_and_the_newest_is_chosen(tmp_path):
    for step in (2, 4):
        sealed_checkpoint(tmp_path, step)
    assert checkpoints.checkpoint_problem(tmp_path / "checkpoint-4") is None
    assert checkpoints.last_complete_checkpoint(tmp_path) == str(tmp_path / "checkpoint-4")


@pytest.mark.parametrize(
    "break_it, problem",
    [
        (lambda c: (c / "optimizer.pt").write_bytes(b"x" * 10), "optimizer.pt has 10 bytes, "),
        (lambda c: (c / "method_state.json").unlink(), "method_state.json is missing"),
        (lambda c: (c / checkpoints.SEAL_FILE).unlink(), "no checkpoint_complete.json: its save did not finish"),
        (lambda c: (c / checkpoints.SEAL_FILE).write_text('{"optim'), "unreadable checkpoint_complete.json"),
        # damaged in place, the size unchanged: a byte range of the optimizer state or of the weights' data
        (lambda c: damage_in_place(c / "optimizer.pt", 40), "optimizer.pt has other content than when saved"),
        (lambda c: damage_in_place(c / "model.safetensors", -64), "model.safetensors has other content than when"),
    ],
    ids=["truncated file", "missing file", "no seal", "truncated seal", "damaged optimizer", "damaged weights"],
)
def test_broken_checkpoint_is_named_removed_and_the_previous_resumed(tmp_path, capsys, break_it, problem):
    for step in (2, 4):
        sealed_checkpoint(tmp_path, step)
    break_it(tmp_path / "checkpoint-4")
    previous = (tmp_path / "checkpoint-2" / "optimizer.pt").read_bytes()
    assert checkpoints.last_complete_checkpoint(tmp_path) == str(tmp_path / "checkpoint-2")
    said = capsys.readouterr().out
    assert f"checkpoint {tmp_path / 'checkpoint-4'} cannot be resumed ({problem}" in said
    assert f"removed it; resuming from {tmp_path / 'checkpoint-2'}" in said
    assert not (tmp_path / "checkpoint-4").exists()
    assert (tmp_path / "checkpoint-2" / "optimizer.pt").read_bytes() == previous


def test_sealed_checkpoint_that_does_not_load_is_named_removed_and_the_previous_resumed(tmp_path, capsys):
    """A file that matches its seal (an older size-only seal, or one sealed broken) but does not load: the trainer
    would stop with an unnamed SafetensorError; the resume names the file, removes the checkpoint, falls back."""
    for step in (2, 4):
        sealed_checkpoint(tmp_path, step)
    folder = tmp_path / "checkpoint-4"
    damage_in_place(folder / "model.safetensors", 0)  # the header's length: unloadable
    seal = json.loads((folder / checkpoints.SEAL_FILE).read_text())
    seal["model.safetensors"] = seal["model.safetensors"]["size"]  # a size-only seal (before sha256 was recorded)
    (folder / checkpoints.SEAL_FILE).write_text(json.dumps(seal))
    assert checkpoints.last_complete_checkpoint(tmp_path) == str(tmp_path / "checkpoint-2")
    said = capsys.readouterr().out
    assert f"checkpoint {folder} cannot be resumed (model.safetensors does not load (" in said
    assert f"resuming from {tmp_path / 'checkpoint-2'}" in said and not folder.exists()


def test_no_complete_checkpoint_starts_afresh_saying_so(tmp_path, capsys):
    sealed_checkpoint(tmp_path, 2)
    (tmp_path / "checkpoint-2" / checkpoints.SEAL_FILE).unlink()
    (tmp_path / checkpoints.SAVING_DIR / "checkpoint-4").mkdir(parents=True)  # a save cut short
    assert checkpoints.last_complete_checkpoint(tmp_path) is None
    assert "no complete checkpoint left: starting afresh" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_only_the_main_process_removes(tmp_path):
    sealed_checkpoint(tmp_path, 2)
    (tmp_path / "checkpoint-2" / checkpoints.SEAL_FILE).unlink()
    assert checkpoints.last_complete_checkpoint(tmp_path, remove_broken=False) is None
    assert (tmp_path / "checkpoint-2").exists()


def test_full_disk_is_named_with_the_folder(tmp_path):
    with pytest.raises(OSError) as err, checkpoints.naming_full_disk(tmp_path, "checkpoint checkpoint-2"):
        with open("/dev/full", "wb") as f:  # a device that is always full
            f.write(b"x" * 10)
    assert err.value.errno == errno.ENOSPC
    assert f"No space left on device while writing checkpoint checkpoint-2 to {tmp_path}" in str(err.value)


def test_torch_write_error_on_a_full_disk_is_named(tmp_path, monkeypatch):
    import torch

    monkeypatch.setattr(checkpoints, "free_bytes", lambda folder: 4096)  # what a full device has left
    with pytest.raises(OSError, match=f"No space left on device while writing the final model to {tmp_path}"):
        with checkpoints.naming_full_disk(tmp_path, "the final model"):
            torch.save({"w": torch.zeros(1000)}, "/dev/full")  # torch's "inline_container.cc ... unexpected pos"


def test_other_errors_pass_unchanged(tmp_path):
    with pytest.raises(ValueError, match="unrelated"), checkpoints.naming_full_disk(tmp_path, "x"):
        raise ValueError("unrelated")


def test_unreadable_fingerprint_starts_afresh_naming_it(tmp_path, capsys):
    work = tmp_path / "work"
    work.mkdir()
    (work / layout.FINGERPRINT_FILE).write_text('{"method": "grpo", "hpar')
    assert not stages.resumable(work, {"method": "grpo"})
    said = capsys.readouterr().out
    assert f"{work / layout.FINGERPRINT_FILE}:1:" in said and "not valid JSON" in said
    assert f"starting afresh in {work}" in said
    (work / layout.FINGERPRINT_FILE).write_text(json.dumps({"method": "grpo"}))
    assert stages.resumable(work, {"method": "grpo"})
