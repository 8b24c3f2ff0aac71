"""The Jupyter kernel of the workspace: the one every committed notebook names, registered by ``make install``.

Every notebook of the repository (``notebooks/``, ``reports/notebooks/``) stores the kernelspec ``KERNELSPEC``
(``python3``, "Python 3"). ``make install`` registers that same kernelspec in the virtual environment
(``python -m rlvr_lib.pipeline.kernelspec install``), so opening a notebook in ``make lab`` does not rewrite its
metadata (JupyterLab writes the running kernel's spec into a notebook whose metadata differ, and autosave then dirties
``git status`` and DVC's hashes). ``ipykernel install`` alone would register "Python 3 (ipykernel)".

The kernel it registers starts quiet: ``--IPKernelApp.log_level=ERROR`` drops ipykernel's "Kernel is running over TCP
without encryption" warning (papermill talks to its kernel over local TCP), and ``PYTHONWARNINGS`` drops tqdm's
"IProgress not found" warning (ipywidgets is not a dependency): neither appears in the stage logs any more.

    python -m rlvr_lib.pipeline.kernelspec install   # (make install) register the kernel in this environment
    (sys.prefix) python -m rlvr_lib.pipeline.kernelspec check     # every committed notebook's kernelspec against the
    installed one
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
QUIET_ARGUMENTS = ["--IPKernelApp.log_level=ERROR"]
QUIET_ENV = {"PYTHONWARNINGS": "ignore:IProgress not found"}


def kernel_dir(prefix: str | Path = sys.prefix) -> Path:
    return Path(prefix) / "share" / "jupyter" / "kernels" / KERNELSPEC["name"]


def install(prefix: str | Path = sys.prefix) -> Path:
    """Register the workspace's kernel (``KERNELSPEC``, quiet) under ``prefix``; returns its kernel.json."""
    from ipykernel.kernelspec import get_kernel_dict

    spec = get_kernel_dict(extra_arguments=QUIET_ARGUMENTS, python_arguments=["-Xfrozen_modules=off"])
    # "python": jupyter_client starts the kernel with the interpreter that launches it (papermill's, JupyterLab's:
    # this environment's), so the spec holds no absolute path that moving or re-linking the environment would break
    spec["argv"][0] = "python"
    spec.update(display_name=KERNELSPEC["display_name"], language=KERNELSPEC["language"], env=dict(QUIET_ENV))
    folder = kernel_dir(prefix)
    folder.mkdir(parents=True, exist_ok=True)
    from ipykernel.kernelspec import RESOURCES

    for logo in Path(RESOURCES).iterdir():  # the logos `ipykernel install` copies
        if logo.is_file():
            (folder / logo.name).write_bytes(logo.read_bytes())
    path = folder / "kernel.json"
    path.write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    return path


def installed_spec(name: str = KERNELSPEC["name"]) -> dict[str, str]:
    """The kernelspec (name, display name, language) Jupyter finds for ``name`` in this environment, as a notebook
    stores it."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(name)
    return {"display_name": spec.display_name, "language": spec.language, "name": name}


def committed_notebooks(root: str | Path = ".") -> list[Path]:
    root = Path(root)
    listed = subprocess.run(["git", "ls-files", "-z", "*.ipynb"], cwd=root, capture_output=True, text=True, check=True)
    return [root / rel for rel in listed.stdout.split("\0") if rel]


def mismatches(notebooks: list[Path], expected: dict[str, str]) -> list[str]:
    """One line per notebook whose stored kernelspec differs from ``expected``."""
    out = []
    for path in notebooks:
        stored = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("kernelspec")
        if stored != expected:
            out.append(f"{path}: kernelspec {stored} differs from the installed {expected}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib.pipeline.kernelspec", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["install", "check"])
    args = parser.parse_args(argv)
    if args.command == "install":
        print(f"registered kernel {KERNELSPEC['name']} ({KERNELSPEC['display_name']}): {install()}")
        return 0
    problems = mismatches(committed_notebooks(), installed_spec())
    print("\n".join(problems) if problems else "every committed notebook names the installed kernelspec")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
