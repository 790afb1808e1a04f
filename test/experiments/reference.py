"""Reference values for test/experiments/statistics.unit.test.ts, computed with SciPy,
independently of src/experiments/: Wilson intervals from scipy's binomtest, normal
and chi-square tails from scipy.stats, the Beta chance to beat and chance to be best
by numerical integration (scipy.integrate.quad), normal tails and the sequential
formulas of docs/experiments.md with scipy.stats.norm, Holm by its definition. Run with a
python3 that has SciPy (Debian's python3-scipy, or the pyenv one here):

    /usr/bin/python3 test/experiments/reference.py > test/experiments/reference.json
"""
import json
import math

import numpy as np
from scipy import integrate, stats

Z = 1.959964
Z80 = 0.841621
ALPHA = 0.05
N_STAR = 5000
rng = np.random.default_rng(20261126)


def conversion_effect(cv, nv, cc, nc):
    """r = p_v/p_c - 1 and its delta-method se, or None (m_c = 0)."""
    if cc == 0:
        return None
    pv, pc = cv / nv, cc / nc
    return pv / pc - 1, math.sqrt(pv * (1 - pv) / (nv * pc**2) + pv**2 * pc * (1 - pc) / (nc * pc**4)), nv + nc


def effect_inference(effect, analysis, bound=True):
    """Interval and p-value of (r, se, n): fixed horizon, or the asymptotic confidence sequence as GrowthBook writes it."""
    if effect is None or effect[1] == 0:
        return None
    r, se, n = effect
    if analysis == "fixed":
        half = Z * se
        p = 2 * stats.norm.sf(abs(r) / se)
    else:
        rho2 = (-2 * math.log(ALPHA) + math.log(-2 * math.log(ALPHA) + 1)) / N_STAR
        a = n * rho2 + 1
        half = se * math.sqrt(n) * math.sqrt(2 * a * math.log(math.sqrt(a) / ALPHA) / (n * n * rho2))
        p = min(1.0, math.sqrt(a) * math.exp(-rho2 * n * (r / se) ** 2 / (2 * a)))
    low = max(-1.0, r - half) if bound else r - half
    return {"value": r, "ci95": [low, r + half], "p_value": p}

proportions = [(0, 10), (1, 1), (3, 10), (10, 10), (50, 1000), (75, 1040), (120, 2000), (4931, 100000), (1, 100000)]
wilson = []
for c, n in proportions:
    lo, hi = stats.binomtest(c, n).proportion_ci(confidence_level=0.95, method="wilson")
    wilson.append({"conversions": c, "n": n, "ci95": [lo, hi]})

pairs = [((75, 1040), (50, 1000)), ((50, 1000), (50, 1000)), ((12, 300), (30, 310)), ((4931, 100000), (5102, 100000)),
         ((3, 150), (9, 140)), ((980, 50000), (1040, 51000)), ((0, 100), (5, 100)), ((5, 100), (0, 120))]
comparisons = []
for (cv, nv), (cc, nc) in pairs:
    pooled = (cv + cc) / (nv + nc)
    se = math.sqrt(pooled * (1 - pooled) * (1 / nv + 1 / nc))
    z = (cv / nv - cc / nc) / se
    p_value = 2 * stats.norm.sf(abs(z))
    pv, pc = cv / nv, cc / nc
    uplift = None
    if cc > 0:
        var = pv * (1 - pv) / (nv * pc**2) + pv**2 * pc * (1 - pc) / (nc * pc**4)
        rel = pv / pc - 1
        uplift = {"relative": rel, "ci95": [rel - Z * math.sqrt(var), rel + Z * math.sqrt(var)]}
    av, bv, ac, bc = 1 + cv, 1 + nv - cv, 1 + cc, 1 + nc - cc
    xv = stats.beta(av, bv)
    xc = stats.beta(ac, bc)
    lo = max(0.0, min(xv.ppf(1e-12), xc.ppf(1e-12)))
    hi = min(1.0, max(xv.isf(1e-12), xc.isf(1e-12)))
    chance, _ = integrate.quad(lambda x: xv.pdf(x) * xc.cdf(x), lo, hi, epsabs=1e-12, epsrel=1e-10, limit=500)
    comparisons.append({"variant": [cv, nv], "control": [cc, nc], "p_value": p_value, "uplift": uplift, "chance_to_beat": chance,
                        "fixed": effect_inference(conversion_effect(cv, nv, cc, nc), "fixed"),
                        "sequential": effect_inference(conversion_effect(cv, nv, cc, nc), "sequential"),
                        "mde_relative": None if cc == 0 else (Z + Z80) * math.sqrt((1 - pc) / pc * (1 / nv + 1 / nc))})

revenue = []
for size_v, size_c, pay_v, pay_c in [(1040, 1000, 0.07, 0.05), (200, 210, 0.2, 0.2), (5000, 5000, 0.01, 0.012)]:
    def sample(size, pay):
        paid = rng.random(size) < pay
        amounts = rng.choice([4.99, 9.99, 29.99, 59.99], size=size)
        return np.where(paid, amounts, 0.0).round(2)
    v, c = sample(size_v, pay_v), sample(size_c, pay_c)
    sv, sc = v.std(ddof=1), c.std(ddof=1)
    half = Z * sv / math.sqrt(size_v)
    revenue.append({
        "variant": {"n": size_v, "sum": float(v.sum()), "sumOfSquares": float((v * v).sum())},
        "control": {"n": size_c, "sum": float(c.sum()), "sumOfSquares": float((c * c).sum())},
        "mean": float(v.mean()), "ci95": [float(v.mean() - half), float(v.mean() + half)],
        "chance_to_beat": float(stats.norm.cdf((v.mean() - c.mean()) / math.sqrt(sv**2 / size_v + sc**2 / size_c))),
        "relative": {a: effect_inference((v.mean() / c.mean() - 1, math.sqrt(sv**2 / (size_v * c.mean()**2) + v.mean()**2 * sc**2 / (size_c * c.mean()**4)), size_v + size_c), a)
                     for a in ("fixed", "sequential")},
        "difference": {a: effect_inference((v.mean() - c.mean(), math.sqrt(sv**2 / size_v + sc**2 / size_c), size_v + size_c), a, bound=False)
                       for a in ("fixed", "sequential")},
    })

srm = []
# Expected counts follow each variant's share of the 10,000 buckets (1:2 gives 3334 and 6666, not a third).
for observed, weights, buckets in [([1000, 1040], [50, 50], [5000, 5000]), ([1000, 1200], [50, 50], [5000, 5000]),
                                   ([300, 310, 620], [25, 25, 50], [2500, 2500, 5000]),
                                   ([5000, 5100, 4900, 5300], [1, 1, 1, 1], [2500, 2500, 2500, 2500]),
                                   ([900, 100], [90, 10], [9000, 1000]), ([3334, 6666], [1, 2], [3334, 6666]),
                                   ([1, 19999], [1, 19999], [1, 9999]), ([900, 150, 30], [80, 10, 10], [8000, 1000, 1000])]:
    total = sum(observed)
    expected = [total * b / 10000 for b in buckets]
    result = stats.chisquare(observed, expected)
    srm.append({"observed": observed, "weights": weights, "expected": expected, "p_value": float(result.pvalue)})


def beta_best(groups):
    """P(each Beta(1+x, 1+n-x) posterior is the largest), by quad over each posterior's bulk."""
    ds = [stats.beta(1 + x, 1 + n - x) for x, n in groups]
    out = []
    for i, d in enumerate(ds):
        lo, hi = d.ppf(1e-14), d.isf(1e-14)
        f = lambda x: d.pdf(x) * np.prod([e.cdf(x) for j, e in enumerate(ds) if j != i])
        value, _ = integrate.quad(f, lo, hi, limit=2000, epsabs=1e-13, epsrel=1e-11, points=[d.mean()])
        out.append(value)
    return out


best = [{"groups": g, "chance_to_be_best": beta_best(g)} for g in [
    [(75, 1040), (50, 1000)], [(50, 1000), (50, 1000), (60, 1000), (40, 1000)], [(0, 10), (1, 1), (3, 10)],
    [(5_000_000, 100_000_000), (5_003_000, 100_000_000)], [(5_000_000, 100_000_000), (5_003_000, 100_000_000), (4_999_000, 100_000_000)],
    [(10, 1000), (500_000, 10_000_000)], [(0, 100), (0, 100_000_000)]]]
big_beat = [{"variant": [5_003_000, 100_000_000], "control": [5_000_000, 100_000_000], "chance_to_beat": beta_best([(5_003_000, 100_000_000), (5_000_000, 100_000_000)])[0]}]


def holm(ps):
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out


holm_cases = [{"p": ps, "adjusted": holm(ps)} for ps in [[0.04], [0.01, 0.04, 0.03], [0.2, 0.001, 0.02, 0.5], [0.5, 0.5]]]
power = [{"p_c": pc, "target": t, "users": math.ceil((Z + Z80) ** 2 * (pc * (1 - pc) + pc * (1 + t) * (1 - pc * (1 + t))) / (pc * t) ** 2)}
         for pc, t in [(0.05, 0.1), (0.02, 0.2), (0.3, 0.05), (0.5, -0.1)]]

normal = [{"z": z, "cdf": float(stats.norm.cdf(z))} for z in [-8, -5.2, -3, -1.959964, -0.5, 0, 0.3, 1, 2.5, 6]]
chi2 = [{"x": x, "df": df, "sf": float(stats.chi2.sf(x, df))} for x, df in [(0.5, 1), (3.84, 1), (10, 2), (25, 3), (0.01, 4), (80, 5), (7.2, 9)]]

print(json.dumps({"wilson": wilson, "comparisons": comparisons, "revenue": revenue, "srm": srm, "normal": normal, "chi2": chi2,
                  "best": best, "big_beat": big_beat, "holm": holm_cases, "power": power}, indent=1))
