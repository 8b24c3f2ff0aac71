"""Sharing trained models as the README describes: `dvc remote add -d`, `dvc push`, then `dvc pull` in a fresh clone.

A tiny git + DVC repository stands in for the project (one stage with a cached folder output, as `runs/<run>/seed<N>`
and `models/base/seed<N>` are); the remote is a local folder. No training: seconds.
"""

import os
import subprocess
import sys
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.org",
    "DVC_NO_ANALYTICS": "1",
}


def run(cwd: Path, *args: str) -> str:
    """Run a command (``dvc ...`` through this interpreter's DVC) in ``cwd``; fail the test with its output."""
    command = [sys.executable, "-m", "dvc", *args[1:]] if args[0] == "dvc" else list(args)
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env={**os.environ, **GIT_ENV})
    assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_push_then_pull_into_a_fresh_clone(tmp_path):
    origin, clone, remote = tmp_path / "origin", tmp_path / "clone", tmp_path / "remote"
    origin.mkdir()
    run(origin, "git", "init", "-q", "-b", "main")
    run(origin, "dvc", "init", "-q")
    run(
        origin,
        "dvc",
        "stage",
        "add",
        "-n",
        "train",
        "-o",
        "runs/tiny",
        "mkdir -p runs/tiny && echo weights > runs/tiny/model.bin",
    )
    run(origin, "dvc", "repro", "-q")
    run(origin, "dvc", "remote", "add", "-d", "shared", str(remote))
    run(origin, "git", "add", "-A")
    run(origin, "git", "commit", "-q", "-m", "a stage with a cached output, and the remote")
    run(origin, "dvc", "push", "-q")
    assert any(p.is_file() for p in remote.rglob("*")), "dvc push stored nothing in the remote"

    run(tmp_path, "git", "clone", "-q", str(origin), str(clone))
    assert not (clone / "runs" / "tiny").exists()  # git-ignored: a clone has no models
    run(clone, "dvc", "pull", "-q")
    assert (clone / "runs" / "tiny" / "model.bin").read_text() == "weights\n"
    assert "up to date" in run(clone, "dvc", "status").lower()  # nothing to rerun once pulled
