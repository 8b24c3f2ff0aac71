"""The five papers' citations, in one place: title, authors and arXiv id as the headers of ``../shared/papers/*.txt``
give them. A paper whose stored text names no arXiv id (TEPO, OPEFO, AER) says so instead of a guessed one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    title: str
    authors: str
    arxiv: str | None  # the arXiv id, or None when the paper's stored text gives none
    note: str = ""  # where the stored text comes from, when it is not an arXiv record

    @property
    def link(self) -> str | None:
        return f"https://arxiv.org/abs/{self.arxiv}" if self.arxiv else None

    def markdown(self) -> str:
        """One line: authors, *title*, arXiv id with its link (or why there is none)."""
        where = f"arXiv [{self.arxiv}]({self.link})" if self.arxiv else f"no arXiv id in its text ({self.note})"
        return f"{self.authors}. *{self.title}*. {where}."

    def inline(self) -> str:
        """Inside a sentence: *title* (first author et al., or the anonymous source; arXiv id or that there is none)."""
        names = self.authors.split(", ")
        if self.authors == "Anonymous":
            who = self.note or "anonymous"
        else:
            who = names[0] + (" et al." if len(names) > 2 else f" and {names[1]}" if len(names) == 2 else "")
        where = f"arXiv [{self.arxiv}]({self.link})" if self.arxiv else "no arXiv id in its text"
        return f"*{self.title}* ({who}; {where})"

    def short(self) -> str:
        """For ``python -m rlvr_lib methods``: the title and arXiv id."""
        return f"{self.title} ({f'arXiv {self.arxiv}' if self.arxiv else 'no arXiv id'})"


REFERENCES: dict[str, Reference] = {
    "erpo": Reference(
        "ERPO: Token-Level Entropy-Regulated Policy Optimization for Large Reasoning Models",
        "Song Yu, Li Li, Wenwen Zhao, Zhisheng Yang",
        "2603.28204",
    ),
    "cw_grpo": Reference(
        "Taming Extreme Tokens: Covariance-Aware GRPO with Gaussian-Kernel Advantage Reweighting",
        "Cheng Wang, Qin Liu, Wenxuan Zhou, Muhao Chen",
        "2605.11538",
    ),
    "tepo": Reference(
        "Token-Level Policy Optimization: Linking Group-Level Rewards to Token-Level Aggregation via Sequence-Level "
        "Likelihood",
        "Xingyu Lin, Yilin Wen, Du Su, Jinchang Hou, En Wang, Wenbin Liu, Chenfu Bao, Zhonghou Lv",
        None,
        "a preprint; its header lists the authors' affiliations only",
    ),
    "opefo": Reference(
        "Understanding and Preventing Entropy Collapse in RLVR with On-Policy Entropy Flow Optimization",
        "Anonymous",
        None,
        "an anonymous ACL submission",
    ),
    "aer": Reference(
        "Revisiting Entropy Regularization: Adaptive Coefficient Unlocks Its Potential for LLM Reinforcement Learning",
        "Xiaoyun Zhang, Xiaojian Yuan, Di Huang, Wang You, Chen Hu, Jingqing Ruan, Kejiang Chen, Xing Hu",
        None,
        "a preprint; its header lists the authors' affiliations only",
    ),
}
