"""What ``make lab``'s Jupyter server does when JupyterLab saves a notebook: opening, running and saving a notebook
leaves the committed files as they are.

``configs/jupyter/jupyter_lab_config.py`` (``make lab`` passes it) makes ``CleanNotebooksManager`` the server's
contents manager. On each notebook save it

- strips the outputs and execution counts of a source notebook (``notebooks/``, committed without outputs): Run All
  there autosaves the cells, never their outputs;
- writes nothing when the notebook saved is the file's once both are serialised as nbformat writes them and the
  kernel's ``metadata.language_info`` is set aside: the language_info the kernel reports on opening (its Python
  version, codemirror mode...), JupyterLab's own serialisation (sorted keys, sources split in lines) and a source
  notebook's stripped outputs rewrite neither a source notebook nor an executed one (``reports/notebooks/``, written
  by papermill), so ``git status`` and DVC's hashes stay as they are. Any other change is written as usual.

The paper notebooks (``PAPER_NOTEBOOKS``, README step 4) are stored as that server writes them, with the
``language_info`` the kernel reports: opening one with this Python leaves JupyterLab nothing to change. (The stage
notebooks keep their form: rewriting them would change a dependency of every train and eval stage's lock entry.)

    python -m rlvr_lib.pipeline.lab check                 # each paper notebook's form and language_info
    python -m rlvr_lib.pipeline.lab normalise PATH...     # rewrite notebooks so (a stage's dependency: rerun it)
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import nbformat
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from traitlets import Unicode

SOURCE_DIR = "notebooks"
PAPER_NOTEBOOKS = "notebooks/papers/*.ipynb"


def is_source(path: str, source_dir: str = SOURCE_DIR) -> bool:
    """Whether ``path`` (relative to the server's root, the repository) is a source notebook: under ``source_dir``."""
    return PurePosixPath(path.strip("/")).parts[:1] == (source_dir,)


def strip_outputs(nb: dict[str, Any]) -> None:
    """Empties every code cell's outputs and execution count, in place (a notebook's JSON as a dict)."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None


def unchanged(stored_text: str, nb: dict[str, Any]) -> bool:
    """Whether the notebook ``nb`` (a dict, as JupyterLab saves it) is the one of ``stored_text`` (the file's JSON)
    once both are written by nbformat with the file's ``metadata.language_info``."""
    stored = nbformat.reads(stored_text, as_version=nbformat.NO_CONVERT)
    new = nbformat.from_dict(copy.deepcopy(nb))
    new.metadata.pop("language_info", None)
    if "language_info" in stored.metadata:
        new.metadata["language_info"] = stored.metadata["language_info"]
    return nbformat.writes(new, version=nbformat.NO_CONVERT) == nbformat.writes(stored, version=nbformat.NO_CONVERT)


class CleanNotebooksManager(AsyncLargeFileManager):
    """The server's default contents manager, saving notebooks as the module says."""

    source_dir = Unicode(SOURCE_DIR, config=True, help="The folder of the source notebooks, saved without outputs.")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.register_pre_save_hook(self._strip_source_outputs)

    def _strip_source_outputs(self, model: dict[str, Any], path: str, **_: Any) -> None:
        if model.get("type") == "notebook" and model.get("content") and is_source(path, self.source_dir):
            strip_outputs(model["content"])

    async def _save_notebook(self, os_path: str, nb: nbformat.NotebookNode, capture_validation_error=None) -> None:
        if os.path.isfile(os_path):
            with open(os_path, encoding="utf-8") as f:
                stored_text = f.read()
            if unchanged(stored_text, nb):
                self.log.info("%s: unchanged, not rewritten", os_path)
                return
        await super()._save_notebook(os_path, nb, capture_validation_error=capture_validation_error)


def kernel_language_info(kernel_name: str = "python3") -> dict[str, Any]:
    """The ``language_info`` the kernel ``kernel_name`` reports (JupyterLab stores it in a notebook it opens)."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name=kernel_name)
    try:
        return client.kernel_info(reply=True, timeout=60)["content"]["language_info"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def canonical(text: str, language_info: dict[str, Any]) -> str:
    """A notebook's JSON ``text`` as the server writes it once the kernel has set ``language_info``."""
    nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    nb.metadata["language_info"] = language_info
    return nbformat.writes(nb, version=nbformat.NO_CONVERT) + "\n"


def form_problems(path: Path, language_info: dict[str, Any]) -> list[str]:
    """What JupyterLab would rewrite in the notebook ``path`` on opening it with the kernel of ``language_info``:
    its language_info (the patch of the Python version aside: another machine's kernel may run another) and its form."""
    text = path.read_text(encoding="utf-8")
    stored = nbformat.reads(text, as_version=nbformat.NO_CONVERT).metadata.get("language_info", {})
    minor = str(language_info.get("version", "")).rsplit(".", 1)[0]
    expected = {**language_info, "version": stored.get("version")}
    problems = []
    if stored != expected or not str(stored.get("version", "")).startswith(minor + "."):
        problems.append(f"{path}: metadata.language_info {stored} is not the kernel's {language_info}")
    if text != canonical(text, stored):
        problems.append(f"{path}: not in the form nbformat writes (sorted keys, indent 1, sources split in lines)")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib.pipeline.lab", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["check", "normalise"])
    parser.add_argument("paths", nargs="*", type=Path, help=f"notebooks (default: {PAPER_NOTEBOOKS})")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(Path().glob(PAPER_NOTEBOOKS))
    language_info = kernel_language_info()
    if args.command == "normalise":
        for path in paths:
            path.write_text(canonical(path.read_text(encoding="utf-8"), language_info), encoding="utf-8")
        return 0
    problems = [line for path in paths for line in form_problems(path, language_info)]
    print("\n".join(problems) if problems else f"{len(paths)} notebooks: as JupyterLab would save them")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
