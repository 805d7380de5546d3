"""Fits of the profile: per-iteration times on k cores or nodes -> `Scalability`, T_base.

Least squares on the basis {1/k, 1, log2 k} and on serial + parallel / k**alpha (superlinear
when alpha > 1), relative residuals so that a slow single-core run does not outweigh the others;
terms must be non-negative. The form is chosen by leave-one-out cross-validation when there are
enough points; the measured points themselves are kept and interpolated between."""
from __future__ import annotations

import itertools
import math
from dataclasses import replace
from typing import Optional, Sequence

import numpy as np

from .model import Scalability

# Basis functions, in the order of preference when two subsets fit equally well.
_TERMS = ("parallel", "serial", "log")
_BASIS = {"parallel": lambda k: 1.0 / k, "serial": lambda k: 1.0, "log": lambda k: math.log2(k)}


def _fit_subset(ks, ts, terms):
    """Least squares of t(k) on `terms`, rows divided by t so residuals are relative."""
    a = np.array([[_BASIS[t](k) / y for t in terms] for k, y in zip(ks, ts)])
    coef, *_ = np.linalg.lstsq(a, np.ones(len(ts)), rcond=None)
    residual = float(np.sum((a @ coef - 1.0) ** 2))
    return coef, residual


def _fit_terms(ks, ts, terms) -> Optional[Scalability]:
    """Linear least squares on `terms` (alpha 1); None when a term comes out negative."""
    coef, _ = _fit_subset(ks, ts, terms)
    if np.any(coef < -1e-12):
        return None
    values = {t: max(0.0, float(c)) for t, c in zip(terms, coef)}
    return Scalability(values.get("serial", 0.0), values.get("parallel", 0.0),
                       values.get("log", 0.0), form="+".join(terms))


def _fit_power(ks, ts) -> Optional[Scalability]:
    """t = serial + parallel / k**alpha, alpha in 0.5..2 (above 1: superlinear speed-up):
    a grid over alpha, linear least squares (relative residuals) for the rest."""
    best = None
    for alpha in np.arange(0.5, 2.0001, 0.01):
        a = np.array([[1.0 / k ** alpha / y, 1.0 / y] for k, y in zip(ks, ts)])
        coef, *_ = np.linalg.lstsq(a, np.ones(len(ts)), rcond=None)
        if coef[0] <= 0 or coef[1] < -1e-12:
            continue
        res = float(np.sum((a @ coef - 1.0) ** 2))
        if best is None or res < best[0] - 1e-15:
            best = (res, float(alpha), float(coef[0]), max(0.0, float(coef[1])))
    if best is None:
        return None
    return Scalability(best[3], best[2], 0.0, best[1], form="power")


def _candidates(ks, ts, max_terms) -> list:
    """Every non-negative form with at most `max_terms` parameters that has a parallel part."""
    out = []
    for size in range(1, min(max_terms, len(_TERMS)) + 1):
        for terms in itertools.combinations(_TERMS, size):
            if "parallel" in terms:
                s = _fit_terms(ks, ts, terms)
                out.append(s) if s is not None else None
    if max_terms >= 3:
        s = _fit_power(ks, ts)
        out.append(s) if s is not None else None
    return out


def _loo_error(ks, ts, form: str) -> Optional[float]:
    """Relative RMS error of `form` predicting each point from the others (leave one out)."""
    errors = []
    for i in range(len(ks)):
        rest_k, rest_t = ks[:i] + ks[i + 1:], ts[:i] + ts[i + 1:]
        fits = [s for s in _candidates(rest_k, rest_t, len(set(rest_k))) if s.form == form]
        if not fits:
            return None
        errors.append(fits[0].fitted(ks[i]) / ts[i] - 1.0)
    return math.sqrt(sum(e * e for e in errors) / len(errors))


def _in_sample_error(s: Scalability, ks, ts) -> float:
    return math.sqrt(sum((s.fitted(k) / t - 1.0) ** 2 for k, t in zip(ks, ts)) / len(ks))


def fit_scalability(ks: Sequence[float], times: Sequence[float]) -> Scalability:
    """The measured points and the curve that extends them (docs/model.md, "Scalability").

    With 4+ distinct k, the forms {parallel, serial, log subsets, serial + parallel / k**alpha}
    compete by leave-one-out cross-validation and the winner's error is `residual`. With fewer
    points the best in-sample fit wins, a smaller form on a tie (two points: Amdahl's law
    exactly), and `residual` stays None. Repeated k are averaged for the interpolation."""
    ks = [float(k) for k in ks]
    ts = [float(t) for t in times]
    if not ks or any(t <= 0 for t in ts) or any(k < 1 for k in ks):
        raise ValueError("need positive times measured on k >= 1 resources")
    points = tuple((k, float(np.mean([t for kk, t in zip(ks, ts) if kk == k])))
                   for k in sorted(set(ks)))
    if len(points) == 1:  # one point: perfect scaling through it
        return Scalability(0.0, ts[0] * ks[0], 0.0, points=points, form="perfect")
    fits = _candidates(ks, ts, len(points))
    if not fits:  # no non-negative fit with a parallel part: times grow with k (oversubscribed)
        coef = np.maximum(_fit_subset(ks, ts, ("serial", "log"))[0], 0.0)
        return Scalability(float(coef[0]), 0.0, float(coef[1]), points=points, form="serial+log")
    if len(points) >= 4:
        scored = [(_loo_error(ks, ts, s.form), s) for s in fits]
        scored = [(e, s) for e, s in scored if e is not None]
        if scored:
            err, best = min(scored, key=lambda p: p[0])
            return replace(best, points=points, residual=err)
    best, best_err = fits[0], _in_sample_error(fits[0], ks, ts)
    for s in fits[1:]:  # in order of size: a larger form must fit strictly better
        err = _in_sample_error(s, ks, ts)
        if err < best_err * (1 - 1e-9) - 1e-12:
            best, best_err = s, err
    return replace(best, points=points)


def measured_scalability(ks: Sequence[float], times: Sequence[float]) -> dict:
    """The paper's direct reading: s(k) = speedup(k) / k = t(k_min) k_min / (k t(k)), per k."""
    k0 = min(ks)
    t0 = min(t for k, t in zip(ks, times) if k == k0)
    return {int(k): t0 * k0 / (k * t) for k, t in zip(ks, times)}


def fit_profile(core_runs: Sequence[tuple], node_runs: Sequence[tuple]) -> dict:
    """Fits s_cores on (cores, t_iter) runs on one node and s_nodes on (nodes, t_iter) runs
    with a fixed core count per node; T_base is the time on one core of one node: the measured
    one when 1 core was measured (interpolation is exact there), else the fit's."""
    s_cores = fit_scalability([k for k, _ in core_runs], [t for _, t in core_runs])
    if len({k for k, _ in node_runs}) >= 2:
        s_nodes = fit_scalability([k for k, _ in node_runs], [t for _, t in node_runs])
    else:
        s_nodes = Scalability()
    return {"t_base_s": s_cores.time(1), "s_cores": s_cores, "s_nodes": s_nodes}
