"""Methods: one module of pure tensor functions per entropy-control method, behind a registry (``registry``); the
shared tensor algebra (``core``) and token covariances (``covariance``). Importing this package imports (and so
registers) every module in it. Imports only ``settings``."""

import importlib
import pkgutil

from rlvr_lib.methods.base import LossBatch, Method, RolloutBatch, RolloutResult
from rlvr_lib.methods.registry import REGISTRY, available_methods, build_method, method_class

_INFRASTRUCTURE = {"base", "core", "registry"}
for _module in pkgutil.iter_modules(__path__):
    if _module.name not in _INFRASTRUCTURE:
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = [
    "REGISTRY",
    "LossBatch",
    "Method",
    "RolloutBatch",
    "RolloutResult",
    "available_methods",
    "build_method",
    "method_class",
]
