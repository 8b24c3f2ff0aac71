"""`make lab` leaves notebooks as committed (issue 42): its contents manager strips a source notebook's outputs on save
and rewrites no notebook whose content is unchanged; the paper notebooks are stored as JupyterLab saves them; no news
toast. (tests/test_lab_browser.py: the same in a real browser.)"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import REPO

from rlvr_lib.pipeline import lab

LANGUAGE_INFO = {"name": "python", "version": "3.11.7", "mimetype": "text/x-python", "file_extension": ".py"}


def notebook(source: str = "print(1)", outputs: list | None = None, language_info: dict | None = None) -> dict:
    cell = {"cell_type": "code", "id": "c1", "metadata": {}, "source": source, "outputs": outputs or []}
    cell["execution_count"] = 1 if outputs else None
    metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    return {"cells": [cell], "metadata": {**metadata, "language_info": language_info or {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}  # fmt: skip


OUTPUT = {"output_type": "stream", "name": "stdout", "text": "1\n"}


def test_source_notebooks_are_those_under_notebooks():
    assert lab.is_source("notebooks/papers/aer.ipynb") and lab.is_source("/notebooks/train.ipynb")
    assert not lab.is_source("reports/notebooks/paper_aer.ipynb") and not lab.is_source("notebooks_old/x.ipynb")


def test_strip_outputs_empties_code_cells_only():
    nb = notebook(outputs=[OUTPUT])
    nb["cells"].append({"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# x"})
    lab.strip_outputs(nb)
    assert nb["cells"][0]["outputs"] == [] and nb["cells"][0]["execution_count"] is None
    assert "outputs" not in nb["cells"][1]


def test_unchanged_sets_aside_the_json_form_and_language_info_only():
    stored = json.dumps(notebook())  # one line, a source as one string: not nbformat's form
    assert lab.unchanged(stored, notebook(language_info=LANGUAGE_INFO))
    assert not lab.unchanged(stored, notebook(source="print(2)"))
    assert not lab.unchanged(stored, notebook(outputs=[OUTPUT]))


def save(root: Path, path: str, nb: dict) -> None:
    manager = lab.CleanNotebooksManager(root_dir=str(root))
    asyncio.run(manager.save({"type": "notebook", "content": nb}, path))


@pytest.mark.parametrize("folder", ["notebooks", "reports/notebooks"])
def test_a_notebook_saved_as_it_is_stored_is_not_rewritten(tmp_path, folder):
    """Opening a notebook (the kernel's language_info) and saving it, or running a source notebook (outputs, stripped)
    and saving it, leaves the file as it is, its time stamp included."""
    path = tmp_path / folder / "x.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(notebook()))
    before = path.stat().st_mtime_ns, path.read_bytes()
    save(tmp_path, f"{folder}/x.ipynb", notebook(language_info=LANGUAGE_INFO))
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before
    if folder == "notebooks":
        save(tmp_path, f"{folder}/x.ipynb", notebook(outputs=[OUTPUT], language_info=LANGUAGE_INFO))
        assert (path.stat().st_mtime_ns, path.read_bytes()) == before


def test_an_edited_notebook_is_written_without_outputs_only_when_it_is_a_source(tmp_path):
    for folder in ("notebooks", "reports/notebooks"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "x.ipynb").write_text(json.dumps(notebook()))
        save(tmp_path, f"{folder}/x.ipynb", notebook(source="print(2)", outputs=[OUTPUT]))
    source = nbformat.read(tmp_path / "notebooks/x.ipynb", as_version=4).cells[0]
    executed = nbformat.read(tmp_path / "reports/notebooks/x.ipynb", as_version=4).cells[0]
    assert source.source == executed.source == "print(2)"
    assert (source.outputs, source.execution_count) == ([], None)
    assert (len(executed.outputs), executed.execution_count) == (1, 1)


def test_the_paper_notebooks_are_stored_as_jupyterlab_saves_them_with_the_kernels_language_info():
    """What opening one in `make lab` would rewrite: nothing (`python -m rlvr_lib.pipeline.lab normalise` otherwise)."""
    paths = sorted(REPO.glob(lab.PAPER_NOTEBOOKS))
    assert len(paths) == 6
    language_info = lab.kernel_language_info()
    assert [p for path in paths for p in lab.form_problems(path, language_info)] == []


def test_form_problems_name_a_hand_written_notebook_and_another_python(tmp_path):
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps(notebook(language_info=LANGUAGE_INFO)))
    (problem,) = lab.form_problems(path, LANGUAGE_INFO)
    assert problem.startswith(f"{path}: not in the form nbformat writes")
    path.write_text(lab.canonical(path.read_text(), LANGUAGE_INFO))
    assert lab.form_problems(path, LANGUAGE_INFO) == []
    assert lab.form_problems(path, {**LANGUAGE_INFO, "version": "3.11.9"}) == []  # another patch: the same kernel
    (problem,) = lab.form_problems(path, {**LANGUAGE_INFO, "version": "3.12.1"})
    assert problem.startswith(f"{path}: metadata.language_info")


def test_make_lab_passes_the_config_that_sets_the_manager_and_silences_the_news():
    makefile = (REPO / "Makefile").read_text()
    assert "LAB_CONFIG := configs/jupyter/jupyter_lab_config.py" in makefile
    assert "jupyter lab --config=$(LAB_CONFIG)" in makefile
    config = (REPO / "configs/jupyter/jupyter_lab_config.py").read_text()
    assert '"rlvr_lib.pipeline.lab.CleanNotebooksManager"' in config
    overrides = json.loads((REPO / "configs/jupyter/settings/overrides.json").read_text())
    plugin = "@jupyterlab/apputils-extension:notification"
    assert overrides == {plugin: {"checkForUpdates": False, "fetchNews": "false"}}
    schemas = Path(sys.prefix) / "share/jupyter/lab/schemas"  # the keys are the plugin's own
    schema = json.loads((schemas / "@jupyterlab/apputils-extension/notification.json").read_text())
    assert set(overrides[plugin]) <= set(schema["properties"])
