"""Fits of the profile: per-iteration times on k cores or nodes -> `Scalability`, T_base.

Least squares on the basis {1/k, 1, log2 k} (numpy.linalg.lstsq), relative residuals so that a
slow single-core run does not outweigh the others; terms must be non-negative (a negative serial
part or a communication cost that speeds the run up has no physical meaning)."""
from __future__ import annotations

import itertools
import math
from typing import Sequence

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


def fit_scalability(ks: Sequence[float], times: Sequence[float]) -> Scalability:
    """Fits t(k) = serial + parallel / k + log * log2 k to measured times per iteration.

    Every subset of terms with at most as many terms as distinct k is tried; the best
    non-negative one wins, a smaller subset on a tie (within 1e-9 relative), so two points give
    Amdahl's law and noise-free data from the full curve gives back its coefficients."""
    ks = [float(k) for k in ks]
    ts = [float(t) for t in times]
    if not ks or any(t <= 0 for t in ts) or any(k < 1 for k in ks):
        raise ValueError("need positive times measured on k >= 1 resources")
    if len(set(ks)) == 1:
        return Scalability(serial=0.0, parallel=ts[0] * ks[0], log=0.0)  # one point: perfect
    best = None
    for size in range(1, min(len(set(ks)), len(_TERMS)) + 1):
        for terms in itertools.combinations(_TERMS, size):
            coef, res = _fit_subset(ks, ts, terms)
            if np.any(coef < -1e-12) or "parallel" not in terms:
                continue
            if best is None or res < best[1] * (1 - 1e-9) - 1e-15:
                best = (terms, res, coef)
    if best is None:  # no non-negative fit with a parallel part: times grow with k
        terms, coef = ("serial", "log"), _fit_subset(ks, ts, ("serial", "log"))[0]
        coef = np.maximum(coef, 0.0)
        return Scalability(**{t: float(c) for t, c in zip(terms, coef)}, parallel=0.0)
    values = {t: max(0.0, float(c)) for t, c in zip(best[0], best[2])}
    return Scalability(serial=values.get("serial", 0.0), parallel=values.get("parallel", 0.0),
                       log=values.get("log", 0.0))


def measured_scalability(ks: Sequence[float], times: Sequence[float]) -> dict:
    """The paper's direct reading: s(k) = speedup(k) / k = t(k_min) k_min / (k t(k)), per k."""
    k0 = min(ks)
    t0 = min(t for k, t in zip(ks, times) if k == k0)
    return {int(k): t0 * k0 / (k * t) for k, t in zip(ks, times)}


def fit_profile(core_runs: Sequence[tuple], node_runs: Sequence[tuple]) -> dict:
    """Fits s_cores on (cores, t_iter) runs on one node and s_nodes on (nodes, t_iter) runs
    with a fixed core count per node; T_base is the fitted time on one core of one node."""
    s_cores = fit_scalability([k for k, _ in core_runs], [t for _, t in core_runs])
    if len({k for k, _ in node_runs}) >= 2:
        s_nodes = fit_scalability([k for k, _ in node_runs], [t for _, t in node_runs])
    else:
        s_nodes = Scalability()
    return {"t_base_s": s_cores.time(1), "s_cores": s_cores, "s_nodes": s_nodes}
