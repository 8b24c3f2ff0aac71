"""environment.yml describes the same pins as pyproject.toml; notebooks are clean and parameterised."""

import json
import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def pins(requirements: list[str]) -> dict[str, str]:
    out = {}
    for req in requirements:
        match = re.match(r"^([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*([=<>!~].*)?$", req.split("#")[0].strip())
        if match and match.group(1) not in ("-e",):
            out[match.group(1).lower().replace("_", "-")] = (match.group(3) or "").strip()
    return out


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = pins(project["dependencies"] + project["optional-dependencies"]["test"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    conda = pins([r for r in pip_section if not r.startswith("-e")])
    assert conda == declared
    assert declared["torch"] == "==2.13.0" and declared["dvc"] == "==3.67.1"


def test_source_notebooks_have_parameters_and_no_outputs():
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    for path in notebooks:
        nb = json.loads(path.read_text())
        tags = [t for c in nb["cells"] for t in c.get("metadata", {}).get("tags", [])]
        assert "parameters" in tags, path.name
        assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code"), path.name


def test_no_test_module_imports_another():
    """Shared helpers live in tests/conftest.py and tests/tiny.py, never in a test module imported by another."""
    import re
    from pathlib import Path

    tests = Path(__file__).parent
    offenders = [
        f"{path.name}: {line.strip()}"
        for path in sorted(tests.glob("test_*.py"))
        for line in path.read_text().splitlines()
        if re.match(r"\s*(from|import) test_\w+", line)
    ]
    assert not offenders, offenders
