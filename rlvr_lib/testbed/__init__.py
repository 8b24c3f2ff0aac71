"""Synthetic verifiable testbed: task generator, from-scratch tokenizer and Qwen2 model, SFT base policy, and its
measured properties. Imports ``eval`` and the layers below it."""

from rlvr_lib.testbed.generator import LEVELS, Problem, make_splits, sample_solutions, to_records
from rlvr_lib.testbed.model import build_model
from rlvr_lib.testbed.sft import TestbedConfig, build_base_policy
from rlvr_lib.testbed.tokenizer import build_tokenizer

__all__ = [
    "LEVELS",
    "Problem",
    "TestbedConfig",
    "build_base_policy",
    "build_model",
    "build_tokenizer",
    "make_splits",
    "sample_solutions",
    "to_records",
]
