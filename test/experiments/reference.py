"""Reference values for test/experiments/statistics.test.ts, computed with SciPy,
independently of src/experiments/: Wilson intervals from scipy's binomtest, normal
and chi-square tails from scipy.stats, the Beta chance to beat by numerical
integration. Run with Debian's python3 and python3-scipy:

    /usr/bin/python3 test/experiments/reference.py > test/experiments/reference.json
"""
import json
import math

import numpy as np
from scipy import integrate, stats

Z = 1.959964
rng = np.random.default_rng(20261126)

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
    comparisons.append({"variant": [cv, nv], "control": [cc, nc], "p_value": p_value, "uplift": uplift, "chance_to_beat": chance})

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
    })

srm = []
for observed, weights in [([1000, 1040], [50, 50]), ([1000, 1200], [50, 50]), ([300, 310, 620], [25, 25, 50]),
                          ([5000, 5100, 4900, 5300], [1, 1, 1, 1]), ([900, 100], [90, 10])]:
    total = sum(observed)
    expected = [total * w / sum(weights) for w in weights]
    result = stats.chisquare(observed, expected)
    srm.append({"observed": observed, "weights": weights, "expected": expected, "p_value": float(result.pvalue)})

normal = [{"z": z, "cdf": float(stats.norm.cdf(z))} for z in [-8, -5.2, -3, -1.959964, -0.5, 0, 0.3, 1, 2.5, 6]]
chi2 = [{"x": x, "df": df, "sf": float(stats.chi2.sf(x, df))} for x, df in [(0.5, 1), (3.84, 1), (10, 2), (25, 3), (0.01, 4), (80, 5), (7.2, 9)]]

print(json.dumps({"wilson": wilson, "comparisons": comparisons, "revenue": revenue, "srm": srm, "normal": normal, "chi2": chi2}, indent=1))
