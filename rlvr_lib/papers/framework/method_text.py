# ruff: noqa: E501  (each display equation stays on one line of its own)
r"""Each paper's method as its report's "The method" section states it: the idea in one paragraph and its equations
in LaTeX (``$$`` blocks, which GitHub and JupyterLab both render; no ``align`` environments), numbered as the paper
numbers them (the methods' docstrings in ``rlvr_lib/methods/`` cite the same numbers), then what the report
regenerates."""

from __future__ import annotations

METHODS: dict[str, str] = {
    "erpo": r"""GRPO gives every token of a response the same advantage $\hat A_i = (r_i - \bar r)/\sigma_r$. ERPO turns it
into a token advantage that concentrates the update on high-entropy tokens (the "critical decision pivots" of
fig. 1(b)), sec. 4 and Algorithm 1:

$$s_{i,t} = \beta_{\text{progress}}\big(\log\pi_\theta(o_{i,t}\mid x, o_{i,<t}) - \log\pi_{\text{ref}}(o_{i,t}\mid x, o_{i,<t})\big) \qquad (7)$$

$$W_{i,t} = \sigma\Big(\gamma\,\frac{H_{i,t} - \mu_{H,\mathcal{G}}}{\sigma_{H,\mathcal{G}} + \delta}\Big) \qquad (8)$$

$$\tilde s_{i,t} = \frac{s_{i,t} - \mu_{k,\mathcal{G}}}{\sigma_{k,\mathcal{G}} + \delta}, \quad (i,t) \in \mathcal{B}_k,\ k = \lfloor K\,t/|o_i| \rfloor \qquad (9)$$

$$\hat A^{\text{final}}_{i,t} = \mathrm{Norm}_{\mathcal{G}}\big(\hat A_i + \eta\,\Psi_{i,t}\big), \qquad \Psi_{i,t} = \sigma_{\text{target}}\,\frac{W_{i,t}\,\mathrm{sgn}(\hat A_i)\,\tilde s_{i,t}}{\mathrm{std}(\hat\Psi_{\text{active}}) + \delta} \qquad (10)$$

The loss is GRPO's clipped surrogate (eq. 5) with these token advantages and a KL term to the reference (eq. 4,
$\beta = 0.001$). $K$, $\sigma_{\text{target}}$ and $\delta$ are not given (docs/assumptions.md, ERPO).

Regenerated here: table 1 (accuracy, format rate) and table 2 (pass@k) for base / GRPO / ERPO; fig. 1(b)'s
perturbation study on the base policy; fig. 4's training curves; fig. 5's response length and training time; one
ablation per component (the paper has none); App. A.3's training-set filter counted on the real MATH files.""",
    "cw_grpo": r"""Under natural policy gradient the entropy change follows the covariance of log-probabilities and
advantages, $\Delta\mathcal{H} \approx -\eta\,\mathrm{Cov}(\log\pi_\theta(o_t), \hat A)$ (Cui et al.). A few tokens with
extreme covariance dominate it; CW-GRPO damps them with a Gaussian kernel (sec. 2.3; the paper does not number these
equations):

$$c_{i,t} = \big(\log\pi_\theta(o_{i,t}) - \overline{\log\pi}\big)\big(\hat A_i - \overline{\hat A}\big), \qquad w_{i,t} = \exp\Big(-\frac{c_{i,t}^2}{2\sigma^2}\Big), \qquad \tilde w_{i,t} = w_{i,t}\,\frac{N}{\sum_{j,k} w_{j,k}}$$

$$\mathcal{J}_{\text{CW-GRPO}} = \frac1G\sum_{i=1}^{G}\frac1{|o_i|}\sum_{t=1}^{|o_i|} \frac{\pi_\theta(o_{i,t})}{\pi_{\theta_{\text{old}}}(o_{i,t})}\,\tilde w_{i,t}\,\hat A_i - \beta\,\mathbb{D}_{\text{KL}}(\pi_\theta\,\|\,\pi_{\text{ref}})$$

with $\sigma$ the std of the $c$ and $N$ the token count; the weights are not differentiated.

Regenerated here: table 2 (Base, GRPO, Clip-Cov, CW-GRPO), fig. 1 (entropy during training), table 1 / fig. 3
(percentiles of the token covariances) and table 3 (accuracy at three checkpoints, each a run stopped there).""",
    "tepo": r"""A response's token ratios are replaced by their geometric mean, which carries the group reward to every
token through the sequence likelihood, and a KL to the rollout policy acts only where a positive advantage meets a
falling entropy (eq. 4, Algorithm 1):

$$w_i = \exp\Big(\frac1{|o_i|}\sum_t \log\frac{\pi_\theta(o_{i,t})}{\pi_{\theta_{\text{old}}}(o_{i,t})}\Big)$$

$$\mathcal{J}_{\text{TEPO}} = \frac{1}{\sum_i |o_i|}\sum_{i}\sum_{t}\Big[\min\big(w_i A_{i,t},\ \mathrm{clip}(w_i, 1-\epsilon, 1+\epsilon)\,A_{i,t}\big) - \beta\,\mathrm{KL}(\pi_\theta\,\|\,\pi_{\theta_{\text{old}}})_{i,t}\,M_{i,t}\Big] \qquad (4)$$

with $M_{i,t} = \mathbb{1}[A_{i,t} > 0 \wedge \Delta\mathcal{H}_{i,t} < 0]$. Both $w_i \neq 1$ and $\Delta\mathcal{H} \neq 0$ need several
updates per rollout batch: the paper makes 8, as 4 mini-batches x 2 passes, and so do TEPO's runs here and its
baselines (the setup table reads the structure from the runs' settings).

Regenerated here: table 1 (GRPO/DAPO, Clip-Cov, KL-Cov, the entropy-based advantage term, GSPO; GPG in `acc_vs_gpg`);
table 3 panels A-E; table 4 (accuracy at matched steps); figs. 2-3; TEPO's trust region (KL to the rollout policy,
w_i, the clip, the mask by update).""",
    "opefo": r"""Strictly on-policy (one update per rollout batch), the first-order entropy change of a policy-gradient
step decomposes over tokens (eq. 6):

$$\Delta\mathcal{H}_t = -\eta\,\mathbb{E}_{a\sim\pi}\big[(1-\pi(a))^2\big(\log\pi(a) + \mathcal{H}_t\big)\big]\,A_t \qquad (6)$$

Tokens with $\Delta\mathcal{H}_t > 0$ form $\mathcal{S}^+$, the others $\mathcal{S}^-$. OPEFO scales the REINFORCE terms
$-A_t\log\pi(y_t)$ by $1+\lambda^*$ on $\mathcal{S}^+$ and $1-\lambda^*$ on $\mathcal{S}^-$ (eq. 7), with the coefficient that
cancels the net flow (eq. 8-9):

$$\lambda^* = \frac{\sum_{\mathcal{S}^-}|\Delta\mathcal{H}_t| - \sum_{\mathcal{S}^+}\Delta\mathcal{H}_t}{\sum_{\mathcal{S}^-}|\Delta\mathcal{H}_t| + \sum_{\mathcal{S}^+}\Delta\mathcal{H}_t} \qquad (9)$$

Eq. 6 is written as an expectation over the vocabulary; sec. 5.1 estimates it "for each generated token $y_t$".
The implementation's default is that per-token estimate (`delta_h: sampled`: the factor at the sampled token); the
expectation is the `delta_h: expectation` variant, whose factor $\mathbb{E}_a[(1-\pi(a))^2(\log\pi(a)+\mathcal{H}_t)]$
is never positive (docs/assumptions.md), so $\Delta\mathcal{H}_t$ takes the sign of $A_t$ and $\mathcal{S}^+$ is
exactly the positive-advantage tokens.

Regenerated here: table 1 (GRPO with 8 updates per rollout, GRPO strict on-policy, Entropy-Reg, Clip-higher,
Clip-Cov, KL-Cov, OPEFO); table 2 (static lambda, S+ only, S- only); fig. 2 (entropy, net flow, flow of clipped
tokens); fig. 4 (entropy, reward, length); fig. 5 and the lambda* statistics.""",
    "aer": r"""An entropy bonus whose strength is set per prompt and steered towards a target entropy (sec. 4.2):

$$\mathcal{J}_{\text{AER}} = \mathcal{J}_{\text{GRPO}} + \mathbb{E}_q\big[\lambda_t(q)\,\mathcal{H}(\pi_\theta(\cdot\mid q))\big] \qquad (7)$$

$$\lambda_t(q) = \alpha_t\,\frac{\max(0,\ \rho - g(q))}{\rho + \epsilon} + \alpha_t\,\mathbb{1}[\rho = 0 \wedge g(q) = 0] \qquad (9)$$

$$H^* = \tau\,\hat{\mathcal{H}}_0 \qquad (10)$$

$$\alpha_{t+1} = \max\big(0,\ \alpha_t + \eta\,\mathrm{sgn}(H^* - \hat{\mathcal{H}}_t)\big) \qquad (11)$$

with $g(q)$ the group's accuracy (eq. 8): C1 (eq. 9) gives the bonus only to prompts harder than the pivot $\rho$, C2
(eq. 10) anchors the target to the first step's entropy, C3 (eq. 11) moves the global coefficient towards it. Defaults
$\tau = 0.4$, $\rho = 0.2$, $\eta = 0.005$ (table 3); $\alpha_0$ is not given. While $\hat{\mathcal{H}}_t > H^*$ eq. 11
drives $\alpha_t$ down to 0: from $\alpha_0 = 0$ the bonus is then never on and the run is GRPO.

Regenerated here: fig. 2(a, b) (a fixed coefficient trained on one level); table 1 (pass@1 and pass@K against
GRPO, Clip-Higher, Ent-Adv, KL-Cov, Clip-Cov); tables 6-7 (pass@k up to k = n, k50); fig. 3 (training dynamics);
table 2 (components); tables 8-9 (tau and rho sweeps); the entropy against its target with alpha_t.""",
    "summary": r"""No method of its own: every method of the workspace (GRPO, its strict on-policy variant, DAPO
clip-higher, entropy regularisation, Clip-Cov, KL-Cov, GSPO, Ent-Adv, ERPO, CW-GRPO, TEPO, OPEFO, AER): seed s of
every run trains from the seed-s base policy with the same budget and is evaluated on the same problems with the same
sampling settings. The strictly on-policy methods (GRPO on-policy, OPEFO) form a second protocol group at one update
per rollout batch; each method is compared with the GRPO run of its own group. Each method's objective is set out in its paper's report ([ERPO](../erpo/README.md),
[CW-GRPO](../cw_grpo/README.md), [TEPO](../tepo/README.md), [OPEFO](../opefo/README.md), [AER](../aer/README.md));
the baselines' exact losses are in `rlvr_lib/methods/` (`python -m rlvr_lib methods`). The common core is GRPO's
group-normalised advantage and clipped surrogate:

$$\hat A_i = \frac{r_i - \mathrm{mean}(r_{1..G})}{\mathrm{std}(r_{1..G})}, \qquad \mathcal{J}_{\text{GRPO}} = \mathbb{E}\Big[\frac{1}{|o_i|}\sum_t \min\big(\rho_{i,t}\hat A_i,\ \mathrm{clip}(\rho_{i,t}, 1-\epsilon, 1+\epsilon)\hat A_i\big)\Big], \quad \rho_{i,t} = \frac{\pi_\theta(o_{i,t})}{\pi_{\theta_{\text{old}}}(o_{i,t})}$$""",
}
