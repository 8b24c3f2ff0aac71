"""Every relative link and image in the committed Markdown (README.md, docs/, reports/) resolves to a file or folder."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")  # [text](target "title"), ![alt](src)
HTML_SRC = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*\"([^\"]+)\"", re.IGNORECASE)
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)  # links inside code are examples, not links
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|#)", re.IGNORECASE)  # http:, https:, mailto:, an anchor alone


def markdown_files(root: Path) -> list[Path]:
    """The Markdown files git tracks under ``root``: README.md, docs/ and reports/."""
    listed = subprocess.run(
        ["git", "ls-files", "README.md", "docs/*.md", "docs/**/*.md", "reports/*.md", "reports/**/*.md"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [root / name for name in listed]


def broken_links(path: Path) -> list[str]:
    """``'<file>:<line>: <target>'`` for each relative link or image of ``path`` that resolves to nothing."""
    text = CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), path.read_text(encoding="utf-8"))
    out = []
    for pattern in (LINK, HTML_SRC):
        for match in pattern.finditer(text):
            target = match.group(1)
            if EXTERNAL.match(target):
                continue
            resolved = (path.parent / target.split("#")[0]).resolve()
            if not resolved.exists():
                line = text.count("\n", 0, match.start()) + 1
                out.append(f"{path}:{line}: {target}")
    return out


def test_committed_markdown_links_resolve():
    files = markdown_files(ROOT)
    assert ROOT / "README.md" in files and any("reports" in f.parts for f in files)
    broken = [link for path in files for link in broken_links(path)]
    assert not broken, "broken relative links:\n" + "\n".join(broken)


def test_a_planted_broken_link_is_found(tmp_path):
    (tmp_path / "fig.png").write_bytes(b"")
    (tmp_path / "sub").mkdir()
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](sub/) ![ok](fig.png) [ok](https://example.org) [ok](#top) `[code](nowhere.md)`\n"
        '[gone](missing.md#part) <img src="lost.png">\n```\n[fenced](nowhere.md)\n```\n![gone](sub/missing.png "t")\n'
    )
    assert broken_links(page) == [
        f"{page}:2: missing.md#part",
        f"{page}:6: sub/missing.png",
        f"{page}:2: lost.png",
    ]
