"""Chapter 14's check cells name the likely mistake: each typical wrong answer (an overflowing exp,
the smoothing's uniform term forgotten, a mean over N instead of the sum of the weights, ...) run
through the real check cell of solutions/14-losses.ipynb gets its own hint. No kernel: the cells run
in-process, in the order the notebook has them."""
from __future__ import annotations

import pytest

from hint_helpers import REPO, cells, hint_for

NOTEBOOK = REPO / "solutions" / "14-losses.ipynb"

WRONG = [
    ('14.1', 'naive',
     'def logsumexp(x):\n    return np.log(np.exp(x).sum(1))',
     "subtract each row's maximum"),
    ('14.1', 'no add back',
     'def logsumexp(x):\n    m = x.max(1, keepdims=True)\n    return np.log(np.exp(x - m).sum(1))',
     'did not add it back'),
    ('14.1', 'wrong axis',
     'def logsumexp(x):\n    m = x.max()\n    return m + np.log(np.exp(x - m).sum())',
     'reduce each row (axis=1)'),
    ('14.2', 'no uniform',
     'def cross_entropy(x, t, weight=None, label_smoothing=0.0):\n    N, C = x.shape; w = np.ones(C) if weight is None else weight; eps = label_smoothing\n    m = x.max(1, keepdims=True); e = np.exp(x - m); lse = m[:, 0] + np.log(e.sum(1)); p = e / e.sum(1, keepdims=True)\n    r = np.arange(N); wt = w[t]\n    loss = ((1 - eps) * wt * (lse - x[r, t])).sum() / wt.sum()\n    g = wt[:, None] * p; g[r, t] -= wt\n    return loss, g / wt.sum()',
     'the uniform term eps / C * sum_c (lse - x_c) is missing'),
    ('14.2', 'eps/(C-1)',
     'def cross_entropy(x, t, weight=None, label_smoothing=0.0):\n    N, C = x.shape; w = np.ones(C) if weight is None else weight; eps = label_smoothing\n    m = x.max(1, keepdims=True); e = np.exp(x - m); lse = m[:, 0] + np.log(e.sum(1)); p = e / e.sum(1, keepdims=True)\n    r = np.arange(N); q = np.full((N, C), eps / (C - 1)); q[r, t] = 1 - eps\n    loss = -(q * (x - lse[:, None])).sum() / N\n    return loss, (p - q) / N',
     'not eps / (C - 1) over the others'),
    ('14.2', 'divide by N',
     'def cross_entropy(x, t, weight=None, label_smoothing=0.0):\n    N, C = x.shape; w = np.ones(C) if weight is None else weight; eps = label_smoothing\n    m = x.max(1, keepdims=True); e = np.exp(x - m); lse = m[:, 0] + np.log(e.sum(1)); p = e / e.sum(1, keepdims=True)\n    r = np.arange(N); wt = w[t]\n    per = (1 - eps) * wt * (lse - x[r, t]) + eps / C * ((lse[:, None] - x) * w).sum(1)\n    g = ((1 - eps) * wt + eps / C * w.sum())[:, None] * p - eps / C * w[None, :]; g[r, t] -= (1 - eps) * wt\n    return per.sum() / N, g / N',
     "divides by the sum of the targets' weights"),
    ('14.2', 'unstable',
     'def cross_entropy(x, t, weight=None, label_smoothing=0.0):\n    N, C = x.shape; w = np.ones(C) if weight is None else weight; eps = label_smoothing\n    e = np.exp(x); lse = np.log(e.sum(1)); p = e / e.sum(1, keepdims=True)\n    r = np.arange(N); wt = w[t]\n    per = (1 - eps) * wt * (lse - x[r, t]) + eps / C * ((lse[:, None] - x) * w).sum(1)\n    g = ((1 - eps) * wt + eps / C * w.sum())[:, None] * p - eps / C * w[None, :]; g[r, t] -= (1 - eps) * wt\n    return per.sum() / wt.sum(), g / wt.sum()',
     'overflow exp'),
    ('14.2', 'grad no mean',
     'def cross_entropy(x, t, weight=None, label_smoothing=0.0):\n    N, C = x.shape\n    m = x.max(1, keepdims=True); e = np.exp(x - m); lse = m[:, 0] + np.log(e.sum(1)); p = e / e.sum(1, keepdims=True)\n    r = np.arange(N); g = p.copy(); g[r, t] -= 1\n    return (lse - x[r, t]).mean(), g',
     'the mean divides the gradient too'),
    ('14.2', 'unweighted smoothing term',
     'def cross_entropy(x, t, weight=None, label_smoothing=0.0):\n    N, C = x.shape; w = np.ones(C) if weight is None else weight; eps = label_smoothing\n    m = x.max(1, keepdims=True); e = np.exp(x - m); lse = m[:, 0] + np.log(e.sum(1)); p = e / e.sum(1, keepdims=True)\n    r = np.arange(N); wt = w[t]\n    per = (1 - eps) * wt * (lse - x[r, t]) + eps / C * ((lse[:, None] - x)).sum(1)\n    g = ((1 - eps) * wt + eps)[:, None] * p - eps / C; g[r, t] -= (1 - eps) * wt\n    return per.sum() / wt.sum(), g / wt.sum()',
     'the uniform term is weighted too'),
    ('14.3', 'naive',
     'def bce_with_logits(x, t):\n    s = 1 / (1 + np.exp(-x))\n    return float(np.mean(-t * np.log(s) - (1 - t) * np.log(1 - s))), (s - t) / x.size',
     'use the stable form'),
    ('14.3', 'torch clamp',
     'def bce_with_logits(x, t):\n    s = 1 / (1 + np.exp(-np.clip(x, -700, 700)))\n    l = -t * np.maximum(np.log(s), -100) - (1 - t) * np.maximum(np.log(1 - s), -100)\n    return float(l.mean()), (s - t) / x.size',
     'sigmoid(40) rounds to 1'),
    ('14.3', 'grad not mean',
     'def bce_with_logits(x, t):\n    sp = np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))\n    s = np.exp(-np.logaddexp(0, -x))\n    return float(np.mean(sp - t * x)), (s - t)',
     'divides it by the number of elements'),
    ('14.4', 'smoothl1',
     'def huber(x, t, delta=1.0):\n    d = x - t; a = np.abs(d)\n    l = np.where(a < delta, 0.5 * d * d / delta, a - 0.5 * delta)\n    return float(l.mean()), np.clip(d / delta, -1, 1) / d.size',
     'that is SmoothL1'),
    ('14.4', 'no half',
     'def huber(x, t, delta=1.0):\n    d = x - t; a = np.abs(d)\n    l = np.where(a < delta, d * d, delta * (a - 0.5 * delta))\n    return float(l.mean()), np.clip(d, -delta, delta) / d.size',
     'the half matters'),
    ('14.4', 'grad not mean',
     'def huber(x, t, delta=1.0):\n    d = x - t; a = np.abs(d)\n    l = np.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))\n    return float(l.mean()), np.clip(d, -delta, delta)',
     'the mean divides the gradient'),
    ('14.5', 'mean',
     'def kl_div(input, target, log_target=False):\n    p = np.exp(target) if log_target else target\n    lp = target if log_target else np.log(np.where(p > 0, p, 1))\n    return float((p * (lp - input)).mean()), -p / input.size',
     'not by the N * C elements'),
    ('14.5', 'nan zeros',
     'def kl_div(input, target, log_target=False):\n    p = np.exp(target) if log_target else target\n    lp = target if log_target else np.log(p)\n    return float((p * (lp - input)).sum() / len(p)), -p / len(p)',
     '0 * log(0) is nan'),
    ('14.5', 'log_target ignored',
     'def kl_div(input, target, log_target=False):\n    p = target\n    lp = np.log(np.where(p > 0, p, 1))\n    return float(np.where(p > 0, p * (lp - input), 0).sum() / len(p)), -p / len(p)',
     'with log_target the target is log P'),
    ('14.6', 'include y',
     'def multi_margin(x, y, margin=1.0):\n    N, C = x.shape; r = np.arange(N)\n    z = margin - x[r, y][:, None] + x\n    a = (z > 0) * 1.0; g = a.copy(); g[r, y] -= a.sum(1)\n    return float(np.maximum(z, 0).sum() / (N * C)), g / (N * C)',
     'leave out i = y'),
    ('14.6', 'no /C',
     'def multi_margin(x, y, margin=1.0):\n    N, C = x.shape; r = np.arange(N)\n    z = margin - x[r, y][:, None] + x; z[r, y] = 0\n    a = (z > 0) * 1.0; g = a.copy(); g[r, y] = -a.sum(1)\n    return float(np.maximum(z, 0).sum() / N), g / N',
     'divided by C'),
    ('14.6', 'grad sign',
     'def multi_margin(x, y, margin=1.0):\n    N, C = x.shape; r = np.arange(N)\n    z = margin - x[r, y][:, None] + x; z[r, y] = 0\n    a = (z > 0) * 1.0; g = -a.copy(); g[r, y] = a.sum(1)\n    return float(np.maximum(z, 0).sum() / (N * C)), g / (N * C)',
     'each violating class i gets +1 / C'),
]


@pytest.mark.parametrize("exercise, label, wrong, hint", WRONG, ids=[f"{e}-{l}" for e, l, _, _ in WRONG])
def test_a_typical_mistake_gets_its_hint(exercise, label, wrong, hint):
    line = hint_for(NOTEBOOK, exercise, wrong)
    assert hint in line, line


def test_every_exercise_has_mistakes_tested():
    # 14.7 is C++ (a %%cpp cell): its mistakes are tested in test_cpp_exercise_hints.py
    assert {e for e, *_ in WRONG} == set(cells(NOTEBOOK)[1]) - {"14.7"} == {f"14.{k}" for k in range(1, 7)}
