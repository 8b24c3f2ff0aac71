# The Jupyter server of `make lab` (jupyter lab --config=configs/jupyter/jupyter_lab_config.py): notebooks stay as
# committed when opened, run and saved (rlvr_lib/pipeline/lab.py), and no news or update toast is shown.
from pathlib import Path

c = get_config()  # noqa: F821 (traitlets defines it in a config file)

c.ServerApp.contents_manager_class = "rlvr_lib.pipeline.lab.CleanNotebooksManager"
# settings/overrides.json: the notification plugin neither asks about nor fetches Jupyter news, nor checks for updates
c.LabApp.app_settings_dir = str(Path(__file__).resolve().parent / "settings")
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.handlers.announcements.NeverCheckForUpdate"
# no check at each page load whether JupyterLab needs a build (a `jupyter lab build --dry-run` of some 20 s of CPU):
# its extensions are the pinned packages' prebuilt ones
c.ServerApp.tornado_settings = {"page_config_data": {"buildAvailable": False, "buildCheck": False}}
