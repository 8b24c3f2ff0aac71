"""rlvr_lib: entropy-control methods for RLVR on TRL's GRPOTrainer, a CPU testbed, rewards and pass@k evaluation."""

__version__ = "0.1.0"
