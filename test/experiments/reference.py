"""Reference values for test/experiments/statistics.unit.test.ts, computed with SciPy,
independently of src/experiments/: Wilson intervals from scipy's binomtest, normal
tails from scipy.stats, the Beta chance to beat and chance to be best
by numerical integration (scipy.integrate.quad), normal tails and the sequential
formulas of docs/reference/experiments.md with scipy.stats.norm, Holm by its definition; the
tests of the difference of means (pooled for rates, Welch for revenue) from raw data,
Fieller's intervals by root finding (scipy.optimize.brentq) on the test statistic,
CUPED from raw (x, y) data with numpy, the expected loss by quad, the sequential SRM
test from scipy.stats.dirichlet_multinomial and multinomial, spreads of near-constant
revenue from numpy, and the power plan against a Monte Carlo of the sequential
readout's looks. Run with a python3 that has SciPy (Debian's python3-scipy, or the
pyenv one here):

    /usr/bin/python3 test/experiments/reference.py > test/experiments/reference.json
"""
import json
import math

import numpy as np
from scipy import integrate, stats

Z = float(stats.norm.ppf(0.975))
ALPHA = 0.05
N_STAR = 5000
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
    av, bv, ac, bc = 1 + cv, 1 + nv - cv, 1 + cc, 1 + nc - cc
    xv = stats.beta(av, bv)
    xc = stats.beta(ac, bc)
    lo = max(0.0, min(xv.ppf(1e-12), xc.ppf(1e-12)))
    hi = min(1.0, max(xv.isf(1e-12), xc.isf(1e-12)))
    chance, _ = integrate.quad(lambda x: xv.pdf(x) * xc.cdf(x), lo, hi, epsabs=1e-12, epsrel=1e-10, limit=500)
    comparisons.append({"variant": [cv, nv], "control": [cc, nc], "chance_to_beat": chance})

revenue = []
for size_v, size_c, pay_v, pay_c in [(1040, 1000, 0.07, 0.05), (200, 210, 0.2, 0.2), (5000, 5000, 0.01, 0.012)]:
    def sample(size, pay):
        paid = rng.random(size) < pay
        amounts = rng.choice([4.99, 9.99, 29.99, 59.99], size=size)
        return np.where(paid, amounts, 0.0).round(2)
    v, c = sample(size_v, pay_v), sample(size_c, pay_c)
    sv, sc = v.std(ddof=1), c.std(ddof=1)
    half = Z * sv / math.sqrt(size_v)
    m = lambda a: {"n": len(a), "meanY": float(a.mean()), "m2y": float(((a - a.mean()) ** 2).sum()), "meanX": 0.0, "m2x": 0.0, "c": 0.0}
    revenue.append({
        "variant": m(v), "control": m(c),
        "mean": float(v.mean()), "ci95": [float(v.mean() - half), float(v.mean() + half)],
        "chance_to_beat": float(stats.norm.cdf((v.mean() - c.mean()) / math.sqrt(sv**2 / size_v + sc**2 / size_c))),
    })

def beta_best(groups):
    """P(each Beta(1+x, 1+n-x) posterior is the largest), by quad over each posterior's bulk, split where
    any other posterior's bulk starts or ends (a narrow posterior inside a wide one is resolved)."""
    ds = [stats.beta(1 + x, 1 + n - x) for x, n in groups]
    out = []
    for i, d in enumerate(ds):
        lo, hi = d.ppf(1e-14), d.isf(1e-14)
        cuts = sorted({lo, hi, *[min(hi, max(lo, v)) for e in ds for v in (e.ppf(1e-14), e.mean(), e.isf(1e-14))]})
        f = lambda x: d.pdf(x) * np.prod([e.cdf(x) for j, e in enumerate(ds) if j != i])
        value = sum(integrate.quad(f, a, b, limit=2000, epsabs=1e-15, epsrel=1e-12)[0] for a, b in zip(cuts, cuts[1:]) if b > a)
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

normal = [{"z": z, "cdf": float(stats.norm.cdf(z))} for z in [-8, -5.2, -3, -1.959964, -0.5, 0, 0.3, 1, 2.5, 6]]

# ---- Decisions II: symmetric tests, Fieller, CUPED, expected loss, sequential SRM, numerics, power ----
from scipy import optimize, special

RHO2 = (-2 * math.log(ALPHA) + math.log(-2 * math.log(ALPHA) + 1)) / N_STAR
Z975 = float(stats.norm.ppf(0.975))


def critical(analysis, n, alpha=ALPHA):
    if analysis == "fixed":
        return float(stats.norm.ppf(1 - alpha / 2))
    a = n * RHO2 + 1
    return math.sqrt(2 * a * math.log(math.sqrt(a) / alpha) / (n * RHO2))


def p_of(analysis, z, n):
    if analysis == "fixed":
        return float(2 * stats.norm.sf(abs(z)))
    a = n * RHO2 + 1
    return min(1.0, math.sqrt(a) * math.exp(-RHO2 * n * z * z / (2 * a)))


def fieller_by_roots(mv, vv, mc, vc, k, floor):
    """The ratios the test does not reject, found as the roots of (mv - r mc)^2 - k^2 (vv + r^2 vc) around mv / mc."""
    if mc <= 0 or mc * mc - k * k * vc <= 0:
        return None
    g = lambda r: (mv - r * mc) ** 2 - k * k * (vv + r * r * vc)
    centre, span = mv / mc, 1.0
    while g(centre - span) < 0 or g(centre + span) < 0:
        span *= 2
    low = optimize.brentq(g, centre - span, centre, xtol=1e-15, rtol=1e-14)
    high = optimize.brentq(g, centre, centre + span, xtol=1e-15, rtol=1e-14)
    return [max(floor, low - 1), high - 1]


def test_of(mv, varv, nv, mc, varc, nc, analysis, floor=-1.0):
    vv, vc = varv / nv, varc / nc
    se = math.sqrt(vv + vc)
    if se == 0:
        return None
    n = nv + nc
    k = critical(analysis, n)
    d = mv - mc
    rel_se = None if mc <= 0 else math.sqrt(vv / mc**2 + mv**2 * vc / mc**4)
    return {"difference": d, "p_value": p_of(analysis, d / se, n), "ci95": [d - k * se, d + k * se],
            "relative": None if mc <= 0 else mv / mc - 1, "relative_ci95": fieller_by_roots(mv, vv, mc, vc, k, floor), "relative_se": rel_se}


quantiles = [{"p": q, "z": float(stats.norm.ppf(q))} for q in [1e-12, 1e-6, 0.001, 0.0125, 0.025, 0.2, 0.5, 0.8, 0.975, 0.999, 1 - 1e-9]]
log_betas = [{"a": a, "b": b, "value": float(special.betaln(a, b))}
             for a, b in [(1, 1e8 + 1), (5e6, 9.5e7), (12, 30), (3.5, 20), (1e6, 1e6), (0.5, 0.5), (2, 9), (1, 101), (9.5, 1e9)]]

# Rates: the two-proportion test with the pooled variance, from the 0/1 data.
rate_tests = []
for (cv, nv), (cc, nc) in [((75, 1040), (50, 1000)), ((50, 1000), (50, 1000)), ((12, 300), (30, 310)), ((4931, 100000), (5102, 100000)),
                           ((0, 500), (9, 480)), ((9, 480), (0, 500)), ((0, 100), (0, 100)), ((100, 100), (99, 100)), ((3, 150), (9, 140))]:
    y = np.concatenate([np.ones(cv), np.zeros(nv - cv), np.ones(cc), np.zeros(nc - cc)])
    pooled = float(np.var(y))  # the pooled variance per user under the null (ddof 0, as p(1 - p))
    case = {"variant": [cv, nv], "control": [cc, nc]}
    for analysis in ("fixed", "sequential"):
        case[analysis] = test_of(cv / nv, pooled, nv, cc / nc, pooled, nc, analysis)
    rate_tests.append(case)

# Revenue: Welch's test from sampled per-user revenue (ddof 1), with Fieller's interval of the ratio (no floor: net revenue may be negative).
mean_tests = []
for size_v, size_c, pay_v, pay_c in [(1040, 1000, 0.07, 0.05), (5000, 5000, 0.01, 0.012), (3000, 2000, 0.2, 0.2)]:
    def sample(size, pay):
        paid = rng.random(size) < pay
        return np.where(paid, rng.lognormal(2.0, 1.0, size), 0.0)
    v, c = sample(size_v, pay_v), sample(size_c, pay_c)
    m = lambda a: {"n": len(a), "meanY": float(a.mean()), "m2y": float(((a - a.mean()) ** 2).sum()), "meanX": 0.0, "m2x": 0.0, "c": 0.0}
    case = {"variant": m(v), "control": m(c)}
    for analysis in ("fixed", "sequential"):
        case[analysis] = test_of(v.mean(), v.var(ddof=1), size_v, c.mean(), c.var(ddof=1), size_c, analysis, floor=-math.inf)
    mean_tests.append(case)

# CUPED from raw (x, y): theta on every arm pooled, adjusted arms, Welch for revenue and the pooled test for rates.
cuped = []
for kind in ("mean", "rate"):
    arms = []
    for lift in (0.0, 0.1, -0.05):
        size = 4000
        history = rng.random(size) < 0.3
        if kind == "mean":
            x = np.where(history, rng.lognormal(2.0, 0.8, size), 0.0)
            y = np.where(rng.random(size) < 0.08 + 0.004 * x, (1 + lift) * rng.lognormal(2.0, 0.8, size), 0.0)
        else:
            x = history.astype(float)
            y = (rng.random(size) < np.where(history, 0.2, 0.05) * (1 + lift)).astype(float)
        arms.append((x, y))
    allx = np.concatenate([a[0] for a in arms]); ally = np.concatenate([a[1] for a in arms])
    theta = float(np.cov(allx, ally, ddof=0)[0, 1] / np.var(allx))
    reduction = float(np.corrcoef(allx, ally)[0, 1] ** 2)
    adjusted = [float(y.mean() - theta * (x.mean() - allx.mean())) for x, y in arms]
    pairs = []
    for i in (1, 2):
        (xv, yv), (xc, yc) = arms[i], arms[0]
        if kind == "mean":
            var_v, var_c = float(np.var(yv - theta * xv, ddof=1)), float(np.var(yc - theta * xc, ddof=1))
        else:
            both = np.concatenate([yv - theta * xv, yc - theta * xc])
            var_v = var_c = float(np.var(both))
        pairs.append({analysis: test_of(adjusted[i], var_v, len(yv), adjusted[0], var_c, len(yc), analysis, floor=-1.0 if kind == "rate" else -math.inf)
                      for analysis in ("fixed", "sequential")})
    moments = [{"n": len(y), "meanY": float(y.mean()), "m2y": float(((y - y.mean()) ** 2).sum()), "meanX": float(x.mean()),
                "m2x": float(((x - x.mean()) ** 2).sum()), "c": float(((x - x.mean()) * (y - y.mean())).sum())} for x, y in arms]
    cuped.append({"kind": kind, "arms": moments, "theta": theta, "reduction": reduction, "adjusted_means": adjusted, "tests": pairs})

# Expected loss of shipping (E[max(0, -D)]) and of keeping the control (E[max(0, D)]), D ~ N(r, s^2), by quad.
losses = []
for r, s_ in [(0.0, 0.05), (0.1, 0.05), (-0.2, 0.1), (0.003, 0.001), (-1e-4, 0.02)]:
    ship = integrate.quad(lambda d: -d * stats.norm.pdf(d, r, s_), r - 40 * s_, 0, epsabs=1e-15, limit=500)[0] if r - 40 * s_ < 0 else 0.0
    keep = integrate.quad(lambda d: d * stats.norm.pdf(d, r, s_), 0, r + 40 * s_, epsabs=1e-15, limit=500)[0] if r + 40 * s_ > 0 else 0.0
    losses.append({"relative": r, "se": s_, "ship": ship, "keep_control": keep})

# Sequential SRM: the mixture over concentrations of Dirichlet-multinomial / multinomial, running minimum of 1 / BF over the looks.
CONCENTRATIONS = [1, 100, 10_000, 1_000_000]


def srm_p(looks, shares):
    p = np.array(shares) / sum(shares)
    best = 1.0
    for look in looks:
        x = np.array(look)
        logs = [stats.dirichlet_multinomial.logpmf(x, c * p, int(x.sum())) - stats.multinomial.logpmf(x, int(x.sum()), p) for c in CONCENTRATIONS]
        bf = float(np.exp(special.logsumexp(logs) - math.log(len(logs))))
        best = min(best, 1 / bf)
    return best


srm_sequential = [{"looks": looks, "shares": shares, "p_value": srm_p(looks, shares)} for looks, shares in [
    ([[40, 2]], [0.5, 0.5]), ([[100, 120], [1000, 1100]], [0.5, 0.5]), ([[500, 480, 1010], [10000, 10400, 20500]], [0.25, 0.25, 0.5]),
    ([[900, 100], [9050, 950], [90400, 9600]], [0.9, 0.1]), ([[5, 6], [50, 61], [300, 420]], [0.5, 0.5])]]

# Spreads of near-constant revenue, from values both sides generate by one rule (see nearConstant in the test): every exposed
# user pays 10^6 plus some cents (a naive sum of squares, near 10^17, loses the spread of about 10^4 entirely); and every user 9.99.
def near_constant_values(n, constant):
    return [9.99 if constant else 1e6 + ((i * 7919) % 100) / 100 for i in range(n)]


near_constant = []
for constant in (False, True):
    values = near_constant_values(100_000, constant)
    mean = math.fsum(values) / len(values)
    near_constant.append({"constant": constant, "n": len(values), "mean": mean, "m2": math.fsum((v - mean) ** 2 for v in values)})

# Power at a fixed horizon: the smallest n with power >= 80 % (the pooled threshold, the alternative's spread; Welch for a mean),
# by root finding on the power function; and for the sequential readout, the smallest n whose Monte Carlo power over L daily looks
# (200,000 paths of the z-statistic's process) reaches 80 %.
Z80 = float(stats.norm.ppf(0.8))


def rate_power(pc, t, n, m, analysis="fixed", looks=1, paths=None):
    pt = pc * (1 + t)
    pbar = (pc + pt) / 2
    s0, s1 = math.sqrt(2 * pbar * (1 - pbar)), math.sqrt(pt * (1 - pt) + pc * (1 - pc))
    if analysis == "fixed":
        return float(stats.norm.cdf((pt - pc - critical("fixed", 2 * n, ALPHA / m) * s0 / math.sqrt(n)) / (s1 / math.sqrt(n))))
    sizes = n * np.arange(1, looks + 1) / looks
    steps = np.diff(np.concatenate([[0], sizes]))
    walk = np.cumsum(paths[:, :looks] * np.sqrt(steps), axis=1)  # sum of per-user differences, in units of s1
    d = (pt - pc) + s1 * walk / sizes
    bound = np.array([critical("sequential", 2 * k, ALPHA / m) for k in sizes]) * s0 / np.sqrt(sizes)
    return float(np.mean((d > bound).any(axis=1)))


def mean_power(mean, var, t, n, m):
    se = math.sqrt(var * ((1 + t) ** 2 + 1) / n)
    return float(stats.norm.cdf((t * mean - critical("fixed", 2 * n, ALPHA / m) * se) / se))


def smallest(power_of):
    high = 2
    while power_of(high) < 0.8:
        high *= 2
    low = high // 2
    while high - low > 1:
        mid = (low + high) // 2
        if power_of(mid) >= 0.8:
            high = mid
        else:
            low = mid
    return high


paths = np.random.default_rng(7).standard_normal((200_000, 60))
power_plans = []
for pc, t, m in [(0.05, 0.1, 1), (0.05, 0.1, 3), (0.2, 0.2, 1), (0.3, 0.05, 2)]:
    power_plans.append({"kind": "rate", "mean": pc, "variance": 0, "target": t, "comparisons": m, "analysis": "fixed", "per_look": None,
                        "users": smallest(lambda n: rate_power(pc, t, n, m))})
for mean, var, t, m in [(1.2, 40.0, 0.1, 1), (0.5, 25.0, 0.2, 2)]:
    power_plans.append({"kind": "mean", "mean": mean, "variance": var, "target": t, "comparisons": m, "analysis": "fixed", "per_look": None,
                        "users": smallest(lambda n: mean_power(mean, var, t, n, m))})
sequential_plans = []
for pc, t, m, looks in [(0.05, 0.1, 1, 20), (0.2, 0.2, 1, 10), (0.2, 0.2, 2, 30), (0.1, 0.15, 1, 60)]:
    sequential_plans.append({"mean": pc, "target": t, "comparisons": m, "looks": looks,
                             "users": smallest(lambda n: rate_power(pc, t, n, m, "sequential", looks, paths))})

decisions_ii = {"quantiles": quantiles, "log_betas": log_betas, "rate_tests": rate_tests, "mean_tests": mean_tests, "cuped": cuped,
                "losses": losses, "srm_sequential": srm_sequential, "near_constant": near_constant, "power_plans": power_plans,
                "sequential_plans": sequential_plans, "z975": Z975}

print(json.dumps({"wilson": wilson, "comparisons": comparisons, "revenue": revenue, "normal": normal,
                  "best": best, "big_beat": big_beat, "holm": holm_cases, **decisions_ii}, indent=1))
