"""A paper's report folder ``reports/papers/<paper>/``: README.md, tables (.md + .csv) and figures (.png).

Everything is rendered in memory, written into a staging folder beside the target and moved into place as a whole
(``rlvr_lib.files.atomic.publish``): a failed or interrupted stage leaves the previous folder as it was.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from rlvr_lib.files.atomic import publish, staging_dir, write_atomic
from rlvr_lib.papers.framework.captions import caption_for
from rlvr_lib.papers.framework.claims import (
    VERDICT_RULE,
    ClaimResult,
    claims_frame,
    claims_table,
    flatten,
    verdict_counts,
)
from rlvr_lib.render.tables import markdown_table

PAPERS_DIR = Path("reports/papers")
SECTIONS = (
    "Summary",
    "The method",
    "Setup: paper vs testbed",
    "Claims",
    "Evidence",
    "Discussion",
    "Limitations",
)  # every report's top-level sections, in this order (README and notebook)
RELATIVE_LINK = re.compile(r"\]\((?!https?:|#|/)([^)]+)\)")  # a Markdown link to a file of the report
DPI = 120


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_").lower()


@dataclass
class Table:
    name: str
    caption: str
    data: pd.DataFrame  # written as CSV (numbers unformatted)
    shown: pd.DataFrame  # written as markdown (formatted cells)


@dataclass
class Section:
    heading: str
    text: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)  # (relative png path, caption)


@dataclass
class WriteUp:
    """The report's sections other than Claims and Evidence, as Markdown (``PaperBase.write`` computes them)."""

    summary: str = ""
    method: str = ""
    setup: str = ""
    discussion: str = ""
    limitations: str = ""
    claims: str = ""  # replaces the claims table where the report has no claims of its own (the summary)


def compact_claims_table(results: list[ClaimResult]) -> pd.DataFrame:
    """One row per claim (parts marked '↳'): its key, source, our difference and verdict; the full table with
    quotes and definitions is claims.md."""
    full = claims_table(results)
    keys = [("↳ " if r.claim.parent else "") + f"`{r.claim.key}`" for r in flatten(results)]
    return pd.DataFrame(
        {
            "claim": keys,
            "source": full["source"],
            "ours: d [95% interval]": full["ours"],
            "verdict": full["verdict"],
            "robust to the declared alternatives": full["robustness"],
        }
    )


class PaperReport:
    """Sections of tables, figures and text (the Evidence, in the order they were added), the claims and the
    write-up's sections."""

    def __init__(self, name: str, title: str, intro: str = "", pairs: int = 0):
        self.name = name
        self.title = title
        self.intro = intro
        self.pairs = pairs  # the (run, seed) pairs `make repro PAPER=<name>` trains: the header's full regeneration
        self.sections: list[Section] = []
        self.files: dict[str, bytes] = {}
        self.claims: list[ClaimResult] = []
        self.writeup = WriteUp()

    def section(self, heading: str, text: str = "") -> Section:
        """The section titled ``heading`` (created at the end when new); ``text`` is appended."""
        for s in self.sections:
            if s.heading == heading:
                if text:
                    s.text = f"{s.text}\n\n{text}" if s.text else text
                return s
        s = Section(heading, text)
        self.sections.append(s)
        return s

    def _add_file(self, rel: str, data: bytes) -> None:
        if rel in self.files:
            raise ValueError(f"two outputs of paper '{self.name}' map to {rel}")
        self.files[rel] = data

    def add_table(self, heading: str, name: str, data: pd.DataFrame, shown: pd.DataFrame | None = None, caption=""):
        table = Table(slug(name), caption, data, data if shown is None else shown)
        self._add_file(f"tables/{table.name}.csv", data.to_csv(index=False).encode())
        fragment = RELATIVE_LINK.sub(r"](../\1)", markdown_table(table.shown))  # its links point from tables/
        self._add_file(f"tables/{table.name}.md", fragment.encode())
        self.section(heading).tables.append(table)
        return table

    def add_text_file(self, rel: str, text: str) -> None:
        """A generated text file of the report folder (e.g. the summary's takeaway, which the main page quotes)."""
        self._add_file(rel, text.encode())

    def add_figure(self, heading: str, name: str, fig: Figure, caption: str = "") -> str:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI)
        rel = f"figures/{slug(name)}.png"
        self._add_file(rel, buf.getvalue())
        self.section(heading).figures.append((rel, caption))
        return rel

    def set_claims(self, results: list[ClaimResult]) -> None:
        self.claims = list(results)

    # ------------------------------------------------------------------ rendering
    def regeneration(self) -> str:
        """The header's two ways to regenerate the report: from the committed results (works on a clone, seconds) and
        from retrained runs (hours; README.md, Budgets, gives the estimate)."""
        return (
            "Regenerate it from the committed results (seconds, works on a clone): "
            f"`dvc repro -s -f paper_{self.name}`. Retrain its {self.pairs} (run, seed) pairs first (hours on a "
            f"2-core machine: README.md, Budgets): `make repro PAPER={self.name}`."
        )

    def readme(self) -> str:
        """The README: ``SECTIONS`` in order, the Evidence holding each experiment's section (tables and figures,
        each followed by its caption line)."""
        w = self.writeup
        lines = [
            f"# {self.title}",
            "",
            f"_Generated by the `paper_{self.name}` stage (`notebooks/papers/{self.name}.ipynb`, "
            f"`{paper_code(self.name)}`) from the pipeline's reports; do not edit by hand. {self.regeneration()}_",
            "",
        ]
        for heading, body in zip(
            SECTIONS,
            (
                w.summary,
                w.method,
                w.setup,
                self.claims_markdown(),
                self.evidence_markdown(),
                w.discussion,
                w.limitations,
            ),
            strict=True,
        ):
            lines += [f"## {heading}", "", body.strip() or "_(none)_", ""]
        return "\n".join(lines)

    def claims_markdown(self) -> str:
        counts = verdict_counts(self.claims)
        lines = ["```text", VERDICT_RULE, "```", ""]
        if not self.claims:
            return "\n".join([*lines, self.writeup.claims or "_(no claims of its own)_"])
        lines += [
            "Verdicts: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n) + ".",
            "",
            markdown_table(compact_claims_table(self.claims)),
            "The full table (the paper's words, its numbers, how ours is computed): [claims.md](claims.md), "
            "[claims.csv](claims.csv). Each row's interval is for the difference d its definition names.",
        ]
        return "\n".join(lines)

    def evidence_blocks(self, heading: str) -> list[tuple[str, str]]:
        """One Evidence subsection as ``(kind, value)`` blocks, in the README's order: ``("text", markdown)`` for its
        text and each caption line, ``("table", markdown)`` then ``("links", markdown)`` (its files) for a table,
        ``("figure", path)`` for a figure (its path in the report folder). The README and the notebook
        (``PaperBase.evidence``) both render these blocks."""
        s = self.section(heading)
        blocks = [("text", s.text)] if s.text else []
        for t in s.tables:
            blocks += [
                ("table", markdown_table(t.shown)),
                ("links", f"Table: [markdown](tables/{t.name}.md), [CSV](tables/{t.name}.csv)"),
            ]
            caption = t.caption or caption_for(self.name, t.name)
            if caption:
                blocks.append(("text", f"_{caption}_"))
        for rel, caption in s.figures:
            blocks.append(("figure", rel))
            caption = caption or caption_for(self.name, Path(rel).stem)
            if caption:
                blocks.append(("text", f"_{caption}_"))
        return blocks

    def evidence_markdown(self) -> str:
        lines = []
        for s in self.sections:
            lines += [f"### {s.heading}", ""]
            alt = {rel: c or caption_for(self.name, Path(rel).stem) or Path(rel).stem for rel, c in s.figures}
            for kind, value in self.evidence_blocks(s.heading):
                if kind == "table":
                    lines.append(value)  # its links line follows without a blank line
                elif kind == "figure":
                    lines += [f"![{alt[value]}]({value})", ""]
                else:
                    lines += [value, ""]
        return "\n".join(lines)

    def render(self) -> dict[str, bytes]:
        files = dict(self.files)
        files["claims.csv"] = claims_frame(self.claims).to_csv(index=False).encode()
        files["claims.md"] = (markdown_table(claims_table(self.claims)) if self.claims else "").encode()
        files["README.md"] = self.readme().encode()
        return files

    def write(self, out_dir: str | Path | None = None) -> Path:
        """Write the folder (default ``reports/papers/<name>``) as a whole; returns its README path."""
        target = Path(out_dir) if out_dir is not None else PAPERS_DIR / self.name
        files = self.render()
        target.parent.mkdir(parents=True, exist_ok=True)
        with staging_dir(target.parent, f"paper_{self.name}") as staged:
            for rel, data in files.items():
                write_atomic(staged / rel, data)
            publish({staged: target})
        return target / "README.md"


def paper_code(name: str) -> str:
    """Where paper ``name``'s code lives: its folder (``rlvr_lib/papers/<name>/``), or the summary's module."""
    folder = Path(__file__).resolve().parents[1] / name
    return f"rlvr_lib/papers/{name}/" if folder.is_dir() else f"rlvr_lib/papers/{name}.py"
