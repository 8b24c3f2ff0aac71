"""Notebooks stay as committed in `make lab` (issue 42), in a real browser: headless Chromium (Debian's `chromium`;
.ci/run installs it) driven by playwright opens an executed notebook and a source notebook in the JupyterLab of the
Makefile's `lab` recipe, in a clone, waits for the kernel and for autosave, runs every cell of the source notebook,
saves both (Ctrl+S): `git status` lists no notebook, and no Jupyter news toast was shown."""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import REPO

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
IN_CI = os.environ.get("CI") == "true"
EXECUTED, SOURCE = "reports/notebooks/paper_summary.ipynb", "notebooks/papers/summary.ipynb"  # Run All: ~20 s
TOKEN = "lab-browser-test"
AUTOSAVE_S = 1  # JupyterLab's default is 120 s
CURRENT = "window.jupyterapp.shell.currentWidget"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lab_command(root: Path, lab_args: str) -> list[str]:
    """The Makefile's `make lab` command line in ``root`` (make -n, this environment as VENV, install taken as done)."""
    venv = Path(sys.prefix)
    done = [venv / ".installed", venv / "share/jupyter/kernels/python3/kernel.json"]
    args = ["make", "-s", "-n", *(f"-o{path}" for path in done), "lab", f"VENV={venv}", f"LAB_ARGS={lab_args}"]
    lines = subprocess.run(args, cwd=root, capture_output=True, text=True, check=True).stdout.strip().splitlines()
    assert len(lines) == 1 and "jupyter lab" in lines[0], lines
    return shlex.split(lines[0])


@pytest.fixture
def lab(tmp_path):
    """JupyterLab as `make lab` starts it, in a clone, with autosave every second: (clone, url, log path)."""
    if not CHROMIUM:
        assert not IN_CI, "CI needs Chromium: .ci/run installs Debian's chromium"
        pytest.skip("needs Chromium (Debian: apt-get install chromium)")
    root = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(REPO), str(root)], check=True)
    user = tmp_path / "jupyter"  # the user's Jupyter settings, workspaces and runtime files: none of the machine's
    docmanager = user / "settings/@jupyterlab/docmanager-extension"
    docmanager.mkdir(parents=True)
    (docmanager / "plugin.jupyterlab-settings").write_text(f'{{"autosaveInterval": {AUTOSAVE_S}}}')
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(user / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(user / "workspaces"),
        "JUPYTER_CONFIG_DIR": str(user / "config"),
        "JUPYTER_DATA_DIR": str(user / "data"),
        "JUPYTER_RUNTIME_DIR": str(user / "runtime"),
        "RLVR_DATA_ROOT": os.environ.get("RLVR_DATA_ROOT", str(REPO.parent / "shared" / "data")),
    }
    port = free_port()
    flags = f"--no-browser --port={port} --ServerApp.port_retries=0 --IdentityProvider.token={TOKEN}"
    command = lab_command(root, flags + " --LabApp.expose_app_in_browser=True")  # window.jupyterapp: its commands
    log = tmp_path / "lab.log"
    with log.open("w") as out:
        server = subprocess.Popen(command, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=5)
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(0.3)
        yield root, url, log
    finally:
        server.terminate()
        server.wait(timeout=60)


def wait_for_kernel(page, path: str) -> None:
    """Until ``path`` is the current tab, its kernel idle and its model saved (autosave has run, if it had to)."""
    page.wait_for_function(
        f"""path => {{
            const w = {CURRENT};
            const kernel = w && w.context && w.context.path === path && w.sessionContext.session?.kernel;
            return kernel && kernel.status === 'idle' && !w.context.model.dirty;
        }}""",
        arg=path,
        timeout=180_000,
    )
    page.wait_for_timeout(2 * AUTOSAVE_S * 1000)  # the kernel's language_info is set after its info reply


def save(page, path: str) -> None:
    """Ctrl+S on the current tab, until the server has answered the save."""
    with page.expect_response(lambda r: r.request.method == "PUT" and f"/api/contents/{path}" in r.url) as saved:
        page.keyboard.press("Control+s")
    assert saved.value.ok, saved.value.status


def test_opening_running_and_saving_notebooks_in_lab_leaves_them_as_committed(lab):
    playwright = pytest.importorskip("playwright.sync_api")  # a test extra (pyproject.toml)
    root, url, log = lab
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_page()
            page.goto(f"{url}/lab/tree/{EXECUTED}?token={TOKEN}", timeout=180_000)
            wait_for_kernel(page, EXECUTED)
            save(page, EXECUTED)

            page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', {path})", SOURCE)
            wait_for_kernel(page, SOURCE)
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(
                f"""() => {{
                    const w = {CURRENT};
                    const code = w.content.widgets.filter(c => c.model.type === 'code');
                    return w.sessionContext.session.kernel.status === 'idle'
                        && code.every(c => c.model.executionCount !== null);
                }}""",
                timeout=300_000,
            )
            outputs = page.evaluate(f"() => {CURRENT}.content.widgets.map(c => c.model.outputs?.length ?? 0)")
            assert sum(outputs) > 5, outputs  # Run All ran: the page holds what a save would have written
            wait_for_kernel(page, SOURCE)  # autosave
            save(page, SOURCE)
            news_toasts = page.get_by_text("Jupyter news").count()
        finally:
            browser.close()
    status = ["git", "status", "--porcelain", "--", "*.ipynb"]
    changed = subprocess.run(status, cwd=root, capture_output=True, text=True, check=True).stdout
    assert changed == "", changed + log.read_text()[-3000:]
    assert news_toasts == 0
