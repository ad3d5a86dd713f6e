"""The points curve of the Lure balance report: a robust quadratic fit of a card's points on
its difficulty (:func:`fit_curve`: soft-l1 loss, the cards far off the first pass set aside,
so two broken cards do not move the others' fair points) and the cards off it by at least
``max(2, 1.5 x robust sigma)`` (:func:`add_fit`)."""

from __future__ import annotations


import numpy as np
import pandas as pd

from experiments.lure.defaults import THRESHOLD_FLOOR

__all__ = ["FIT_METHODS", "REJECT_SIGMAS", "MAD_TO_SIGMA", "fit_curve", "add_fit"]

FIT_METHODS = ("robust", "least-squares")
"""Curve fits of :func:`fit_curve`: ``robust`` (the default) and the plain ``least-squares``."""


REJECT_SIGMAS = 3.0
"""The robust fit refits without the cards more than this many robust sigmas off its first
pass."""


MAD_TO_SIGMA = 1.4826
"""Median absolute deviation -> standard deviation of a normal distribution."""


def _robust_scale(residuals: np.ndarray) -> float:
    """``1.4826 x median(|r|)``: the residuals' standard deviation if they were normal, read
    from their median absolute size (so a few huge residuals do not inflate it)."""
    return float(MAD_TO_SIGMA * np.median(np.abs(residuals))) if len(residuals) else 0.0


def fit_curve(difficulty, points, degree: int = 2, method: str = "robust"):
    """Polynomial of points on difficulty over the finite difficulties.

    ``method="robust"`` (default): scipy's ``least_squares`` with the soft-l1 loss
    (``f_scale`` 1 card point: a residual counts squared up to about a point and linearly
    beyond, Huber 1964 / Triggs et al. 2000), started from the plain fit; then the cards more
    than :data:`REJECT_SIGMAS` robust sigmas (``1.4826 x median |residual|``, at least 1/3 of a
    point) off that curve are set aside and the soft-l1 fit is repeated on the others. Two
    broken cards of a 30-card deck therefore barely move the other cards' fitted points (the
    shipped deck with B04 and B26 broken: at most 0.13 points, against 1.44 for the plain fit).
    ``method="least-squares"``: ``numpy.polyfit``, the plain fit the robust one replaced.

    Args:
        difficulty, points: array-likes of the same length (``D`` may be ``inf``: cards nobody
            can catch are left out of the fit).
        degree: the polynomial's degree.
        method: :data:`FIT_METHODS`.

    Returns:
        ``(coefficients, fitted, scale)``: numpy polynomial coefficients (highest first), the
        fitted points for every card (float64, NaN where the difficulty is infinite) and the
        residuals' scale in card points: the robust sigma of the cards kept in the fit
        (robust), or the residual RMSE (least-squares).

    Raises:
        ValueError: fewer than ``degree + 2`` catchable cards, or an unknown method.
    """
    if method not in FIT_METHODS:
        raise ValueError(f"bad fit method {method!r}: expected one of {', '.join(FIT_METHODS)}")
    d = np.asarray(difficulty, float)
    y = np.asarray(points, float)
    ok = np.isfinite(d)
    if ok.sum() < degree + 2:
        raise ValueError(f"{int(ok.sum())} catchable cards; the fit needs at least {degree + 2}")
    coef = np.polyfit(d[ok], y[ok], degree)
    if method == "robust":
        coef, _ = _robust_poly(d[ok], y[ok], coef)
    fitted = np.where(ok, np.polyval(coef, np.where(ok, d, 0.0)), np.nan)
    r = y[ok] - fitted[ok]
    if method == "robust":
        scale = _robust_scale(r[np.abs(r) <= REJECT_SIGMAS * max(_robust_scale(r), 1 / 3)])
    else:
        scale = float(np.sqrt(np.mean(r ** 2)))
    return coef, fitted, scale


def _robust_poly(d: np.ndarray, y: np.ndarray, start: np.ndarray):
    """Soft-l1 fit, rejection of the cards beyond :data:`REJECT_SIGMAS` robust sigmas, soft-l1
    refit (:func:`fit_curve`). Returns ``(coefficients, kept mask)``."""
    from scipy.optimize import least_squares

    X = np.vander(d, len(start))

    def fit(rows, b0):
        Xr, yr = X[rows], y[rows]
        return least_squares(lambda b: Xr @ b - yr, b0, loss="soft_l1", f_scale=1.0).x

    b = fit(np.ones(len(y), bool), start)
    r = y - X @ b
    keep = np.abs(r) <= REJECT_SIGMAS * max(_robust_scale(r), 1 / 3)
    if keep.sum() >= len(start) + 1 and not keep.all():
        b = fit(keep, b)
    return b, keep


def add_fit(cards: pd.DataFrame, method: str = "robust") -> tuple[pd.DataFrame, dict]:
    """Add ``fitted_points``, ``fair_points`` (rounded), ``residual`` (points - fitted) and
    ``flag`` columns to a :func:`card_table` frame (``difficulty``, ``points``).

    The curve is :func:`fit_curve` (``method``, default robust); a card is flagged over- or
    under-valued when its residual is at least ``threshold = max(2, 1.5 x scale)`` card
    points in size (the floor: :data:`experiments.lure.defaults.THRESHOLD_FLOOR`), ``scale``
    the robust sigma of the residuals (least-squares: the RMSE), and ``uncatchable`` when its
    difficulty is infinite. Returns ``(frame, fit)``, ``fit`` a dict: ``method``,
    ``coefficients`` (highest power first), ``scale``, ``rmse`` (of every catchable card's
    residual), ``threshold``, ``outliers`` (ids set aside by the robust fit, when the frame
    has an ``id`` column). Raises ``ValueError`` from :func:`fit_curve`."""
    coef, fitted, scale = fit_curve(cards["difficulty"], cards["points"], method=method)
    thr = max(THRESHOLD_FLOOR, 1.5 * scale)
    out = cards.copy()
    out["fitted_points"] = fitted
    out["fair_points"] = np.where(np.isfinite(fitted), np.round(fitted), np.nan)
    out["residual"] = out["points"] - fitted
    ok = np.isfinite(fitted)
    res = out["residual"].to_numpy(float)[ok]
    rmse = float(np.sqrt(np.mean(res ** 2)))
    far = np.abs(res) > REJECT_SIGMAS * max(_robust_scale(res), 1 / 3)
    outliers = (list(out["id"].to_numpy()[ok][far]) if method == "robust" and "id" in out
                else [])
    out["flag"] = np.select([~np.isfinite(out["difficulty"]), out["residual"] >= thr,
                             out["residual"] <= -thr],
                            ["uncatchable", "over-valued", "under-valued"], "")
    return out, {"method": method, "coefficients": coef.tolist(), "scale": float(scale),
                 "rmse": rmse, "threshold": thr, "outliers": [str(x) for x in outliers]}
