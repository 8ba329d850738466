"""A fusion tuning result as text (for people) and as a dict (``--format json``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from retrieval_eval.records.metrics import RateEstimate
from retrieval_eval.tuning.tune import Comparison, TuningResult


def _rate(e: RateEstimate) -> str:
    return f"{e.rate:.3f}  [{e.low:.3f}, {e.high:.3f}]  {e.successes:>4}/{e.count}"


def _versus(c: Comparison) -> str:
    delta = f"{c.gain:+.3f}"
    verdict = "within noise" if c.within_noise else "significant"
    return f"{delta} ({c.wins} won, {c.losses} lost), p = {c.p_value:.3f}: {verdict}"


def tuning_text(r: TuningResult) -> str:
    """The report: held-out estimate, references, best setting, the block to paste."""
    calls = ", ".join(f"{m} {n}" for m, n in zip(r.members, r.calls, strict=True))
    width = max(len(c.name) for c in r.comparisons) + 2
    width = max(width, len("tuned (held-out)") + 2)
    lines = [
        f"fusion {r.name} on set {r.set_name}: {r.metric}, {r.folds}-fold cross-validation "
        f"stratified by form (seed {r.seed}), limit {r.limit}",
        f"retrieval calls: {calls} (once per question); {r.grid_size} settings scored on them",
        "",
        f"{'':{width}}{'rate':<7}{'95% interval':<16}{'hits':>7}   tuned vs this",
        f"{'tuned (held-out)':{width}}{_rate(r.held_out)}",
    ]
    lines += [f"{c.name:{width}}{_rate(c.estimate)}   {_versus(c)}" for c in r.comparisons]
    choices = Counter(p.describe() for p in r.fold_choices)
    picked = ", ".join(f"{s} ({n} of {r.folds})" for s, n in choices.most_common())
    lines += [
        "",
        f"chosen per fold: {picked}",
        f"best on all questions: {r.best.describe()}, in-sample {r.in_sample.rate:.3f} "
        "(optimistic: chosen on the same questions; the held-out figure is the honest one)",
        *(f"note: {n}" for n in r.notes),
        "",
        _conclusion(r),
        "",
    ]
    if r.recommended:
        lines += ["paste into reval.toml:", "", r.paste]
    else:
        best = r.strongest_reference
        lines.append(
            f"no setting recommended: the tuned held-out {r.held_out.rate:.3f} does not beat "
            f"{best.name} ({best.estimate.rate:.3f}); keep what is in reval.toml"
        )
    return "\n".join(lines)


def _conclusion(r: TuningResult) -> str:
    plain = r.comparisons[-1]
    members = r.comparisons[:-1]
    best_member = max(members, key=lambda c: c.estimate.successes)
    parts = []
    for c in (plain, best_member):
        if c.within_noise:
            parts.append(f"the tuned fusion vs {c.name} is within noise (p = {c.p_value:.3f})")
        else:
            word = "beats" if c.wins > c.losses else "loses to"
            parts.append(f"the tuned fusion {word} {c.name} (p = {c.p_value:.3f})")
    return "; ".join(parts) + "."


def tuning_to_dict(r: TuningResult) -> dict[str, Any]:
    def rate(e: RateEstimate) -> dict[str, Any]:
        return {"rate": e.rate, "low": e.low, "high": e.high, "hits": e.successes, "count": e.count}

    return {
        "fusion": r.name,
        "set": r.set_name,
        "members": list(r.members),
        "metric": r.metric,
        "folds": r.folds,
        "seed": r.seed,
        "limit": r.limit,
        "calls": dict(zip(r.members, r.calls, strict=True)),
        "settings": r.grid_size,
        "held_out": rate(r.held_out),
        "fold_choices": [p.describe() for p in r.fold_choices],
        "best": r.best.describe(),
        "in_sample": rate(r.in_sample),
        "comparisons": [
            {
                "name": c.name,
                **rate(c.estimate),
                "wins": c.wins,
                "losses": c.losses,
                "p_value": c.p_value,
                "within_noise": c.within_noise,
            }
            for c in r.comparisons
        ],
        "notes": list(r.notes),
        "recommended": r.recommended,
        "paste": r.paste if r.recommended else None,
    }
