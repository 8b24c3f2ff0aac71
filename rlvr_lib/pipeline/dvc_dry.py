"""DVC's command line with the dry-run failure on a fresh clone worked around (DVC issue #9818).

``dvc repro --dry`` and ``dvc exp run --dry`` hash the dependencies of every stage they would run, to look it up in
DVC's run cache; on a clone without ``data/``, ``models/`` and ``runs/`` the first stage whose input another stage
has not produced yet fails (``[Errno 2] No such file or directory``), so a dry run lists nothing. This module runs
DVC's own command line with one change: a stage with a missing local dependency is not looked up in the run cache
(it could not be found there anyway), so a dry run lists every stage that would run.

    python -m rlvr_lib.pipeline.dvc_dry repro --dry paper_aer
    python -m rlvr_lib.pipeline.dvc_dry exp run --dry -S 'methods.aer_tau_0_8.tau=0.6'
"""

from __future__ import annotations

import sys


def skip_run_cache_for_missing_deps() -> None:
    """Patch ``dvc.stage.cache._can_hash``: False for a stage with a missing local dependency, else DVC's answer."""
    import dvc.stage.cache as run_cache

    original = run_cache._can_hash
    if getattr(original, "skips_missing_deps", False):
        return

    def can_hash(stage) -> bool:
        if any(dep.protocol == "local" and not dep.exists for dep in stage.deps):
            return False
        return original(stage)

    can_hash.skips_missing_deps = True
    run_cache._can_hash = can_hash


def main(argv: list[str] | None = None) -> int:
    from dvc.cli import main as dvc_main

    skip_run_cache_for_missing_deps()
    return dvc_main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
