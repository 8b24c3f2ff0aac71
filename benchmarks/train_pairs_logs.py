"""Write the DVCLive logs (metrics.json, plots, params.yaml) of pairs trained by benchmarks/train_pairs.sh on a host
without DVCLive, from each pair's history.json, exactly as the train stage writes them (rlvr_lib.training.train's
``write_training_logs`` with the stage's params), so ``dvc metrics show`` and the report find them. It also removes
each pair's executed stage notebooks (``reports/notebooks/train_<run>_seed<N>.ipynb``, ``eval_...``) left by an
earlier run of its stages: they log a training that no longer made the committed files (the pair's log is now
``logs/pairs/<run>_seed<N>.log`` in the host's pairs.tar.xz).

    python benchmarks/train_pairs_logs.py RUN:SEED [RUN:SEED ...]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from rlvr_lib.files.readers import read_json
from rlvr_lib.workspace import layout

NOTEBOOKS = Path("reports/notebooks")


def drop_stage_notebooks(run: str, seed: int, notebooks: Path = NOTEBOOKS) -> list[Path]:
    """Remove the executed train and eval notebooks of pair (run, seed), the logs of an earlier run; returns them."""
    gone = [notebooks / f"{stage}_{run}_seed{seed}.ipynb" for stage in ("train", "eval")]
    gone = [p for p in gone if p.is_file()]
    for path in gone:
        path.unlink()
    return gone


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", nargs="+", metavar="RUN:SEED", help="the pairs whose logs to write")
    pairs = parser.parse_args(argv).pairs
    from rlvr_lib.training import train as training  # torch, transformers and TRL: not for --help

    params = layout.enter_repo("params.yaml")
    for pair in pairs:
        run, seed = pair.split(":")
        spec = layout.run_spec(params, run)
        cfg = params.train_config(run, int(seed))
        folder = layout.TRAINING_LOGS_DIR / run / layout.seed_folder(int(seed))
        history = read_json(folder / "history.json", list)
        stage_params = {"run": run, "method": spec.method, "train_data": spec.train_data, **spec.hparams, **asdict(cfg)}
        with tempfile.TemporaryDirectory() as tmp:  # DVCLive cleans its folder first: history.json stays apart
            training.write_training_logs(history, tmp, stage_params)
            for item in Path(tmp).iterdir():
                target = folder / item.name
                if item.is_dir():
                    shutil.copytree(item, target, dirs_exist_ok=True)
                else:
                    shutil.copy2(item, target)
        print(f"{folder}: {len(history)} steps logged")
        for path in drop_stage_notebooks(run, int(seed)):
            print(f"{path}: removed (the log of an earlier run of this pair)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
