"""Registry of entropy-control methods. Importing this package registers every method module."""
from . import grpo  # noqa: F401  (registers grpo, dapo)
from .base import LossBatch, Method, RolloutBatch, RolloutResult
from .registry import REGISTRY, available_methods, build_method, method_class

__all__ = [
    "REGISTRY", "LossBatch", "Method", "RolloutBatch", "RolloutResult",
    "available_methods", "build_method", "method_class",
]
