"""rlvr_lib: entropy-control methods for RLVR on TRL's GRPOTrainer, a CPU testbed, rewards, pass@k evaluation, and
the paper replications built on them.

The package is in layers (``LAYERS``, lowest first). A module imports only from its own layer and the layers below
it (tests/test_layers.py checks every import, lazy ones included, and that there is no import cycle); within
``papers``, a paper's folder imports only the framework and itself. ``__main__`` (the command line) sits on top.
"""

__version__ = "0.1.0"

LAYERS = (
    "settings",  # typed params.yaml: every setting, checked when read
    "files",  # atomic writes, JSON readers, checkpoints
    "methods",  # the losses: one module of pure tensor functions per method, behind a registry
    "tasks",  # math problems, answer grading (math-verify), tokenizers
    "eval",  # sampling, pass@k, evaluation files, training-set filters by pass rate
    "analysis",  # measurements on runs and samples: smoothing, convergence, entropy flow, perturbation, ...
    "testbed",  # the synthetic task, the tiny model and its SFT base policy
    "training",  # the TRL trainer, a run from settings to files, memory estimates
    "workspace",  # where the pipeline's files live and whether they match params.yaml
    "render",  # figures and markdown tables
    "papers.framework",  # claims, verdicts, gates, measures, results: the shared engine of every paper report
    "papers",  # one folder per paper (claims as declarations, measures, tables, figures, text) and the summary
    "tuning",  # issue 41's equal tuning budget: the declared search space, seed health, the selection rule
    "reporting",  # the main page and the report stage's files
    "pipeline",  # the DVC stages, their generation, lanes, lock, dry runs, smoke, docs' numbers
)
