"""Reference values for DP-UMP one-sided and two-sided p-values at large n, mpmath at 60 digits.

Run offline (``python tests/reference/make_ump_large_n.py``, a few minutes on one core); it
writes ``tests/reference/ump_large_n_values.json``, read by
``tests/inference/test_ump_large_n.py`` (issue 26 W4: n in {1e6, 1e9, 2**47}).

Independent of the package: the grid step of the release is rebuilt from its definition
(``k = min(40, 52 - bit_length(n + C + 1))``, ``C = ceil(764 / epsilon) + 1``), the one-sided
p-values are the continuous sums at ``z -/+ h/2`` (as in ``make_ump.py``), the two-sided one the
package's rule (continuous p-value at z moved towards n p0 by h/2).  The Tulap cdf is written
out from its definition (Awan & Slavkovic 2018), the binomial pmf starts from
``mp.loggamma`` at the window's first x and follows the exact ratio recursion.  The sums run
over x in ``[min(n p0, z) - 14 sd - 400 / epsilon, max(n p0, z) + 14 sd + 400 / epsilon]``
(clipped to [0, n]); outside it the pmf is below exp(-98) of its peak and the Tulap factor
at most that of the window's nearest end, and the script reports the binomial mass it
covered (1 to 1e-40 in every case).  p0 is the double the package sees; z is snapped to the release grid (as in
``make_ump.py``), the issue's reproducers lie on it already.
"""

import json
from pathlib import Path

import mpmath as mp

mp.mp.dps = 60
OUT = Path(__file__).with_name("ump_large_n_values.json")

CASES = [  # (z, n, p0, epsilon, alternative); the first two are issue 26's reproducers
    (140737488355187.16, 2**47, 0.9999999999985789, 1 / 3, "greater"),
    (180.0000001192093, 10**9, 2e-7, 0.5, "less"),
    (302000.7, 10**6, 0.3, 1.0, "greater"),
    (298000.3, 10**6, 0.3, 1.0, "less"),
    (298000.3, 10**6, 0.3, 1.0, "two-sided"),
    (71.3, 10**6, 1e-4, 0.5, "less"),
    (135.6, 10**6, 1e-4, 2.0, "greater"),
    (999950.2, 10**6, 0.99995, 1.0, "two-sided"),
    (300060000.4, 10**9, 0.3, 1.0, "greater"),
    (299940000.4, 10**9, 0.3, 1.0, "less"),
    (10250.3, 10**9, 1e-5, 0.5, "greater"),
    (9800.3, 10**9, 1e-5, 0.5, "less"),
    (9800.3, 10**9, 1e-5, 0.5, "two-sided"),
    (10**9 - 1100.7, 10**9, 1 - 1e-6, 1.0, "less"),
    (2**47 - 100.3, 2**47, 1 - 1e-12, 0.5, "less"),
    (60.3, 2**47, 3e-13, 1.0, "greater"),
    (20.7, 2**47, 3e-13, 1.0, "less"),
    (140737.3 + 900, 2**47, 1e-9, 1.0, "greater"),
    (140737.3 - 900, 2**47, 1e-9, 1.0, "less"),
    (140737.3 - 900, 2**47, 1e-9, 1.0, "two-sided"),
    # issue 40: binomial standard deviations between 2,000 and 1e4, where scipy's tail is short
    (99976283.28754866, 10**9, 0.1, 1.0, "less"),
    (98491428.40625, 2**47, 7e-7, 1.0, "less"),
    (25348854.40625, 2**47, 1.8e-7, 1.0, "greater"),
    (50030000.3, 10**8, 0.5, 1.0, "greater"),
]


def grid_half(n, eps):
    c = int(mp.ceil(764 / mp.mpf(eps))) + 1
    k = min(40, 52 - (n + c + 1).bit_length())
    return mp.mpf(2) ** -(k + 1)


def cdf(t, b):
    """Tulap(0, b, 0) cdf from its definition."""
    s = -abs(t)
    k = mp.nint(s)
    low = b ** (-k) / (1 + b) * (b + (s - k + mp.mpf(1) / 2) * (1 - b))
    return low if t <= 0 else 1 - low


def window_sum(n, p0, eps, shift, sign):
    """sum_x Binom(x; n, p0) F(sign (x - shift)) over the window, and the binomial mass covered."""
    b = mp.exp(-mp.mpf(eps))
    p = mp.mpf(p0)
    q = 1 - p
    mean, sd = n * p, mp.sqrt(n * p * q)
    reach = 14 * sd + 400 / mp.mpf(eps) + 50
    lo = int(max(0, mp.floor(min(mean, shift) - reach)))
    hi = int(min(n, mp.ceil(max(mean, shift) + reach)))
    w = mp.exp(mp.loggamma(n + 1) - mp.loggamma(lo + 1) - mp.loggamma(n - lo + 1)
               + lo * mp.log(p) + (n - lo) * mp.log(q))
    ratio = p / q
    total = mass = mp.mpf(0)
    for x in range(lo, hi + 1):
        total += w * cdf(sign * (x - shift), b)
        mass += w
        w = w * (n - x) / (x + 1) * ratio
    return total, mass


def snap(z, n, eps):
    """The grid point (an odd multiple of h/2) nearest below-or-at z: what a release can be."""
    half = grid_half(n, eps)
    units = int(mp.floor(mp.mpf(z) / half))
    if units % 2 == 0:
        units += 1
    return float(units * half)


def pvalue(z, n, p0, eps, alternative):
    half = grid_half(n, eps)
    z = mp.mpf(z)
    if alternative == "greater":
        return window_sum(n, p0, eps, z - half, 1)
    if alternative == "less":
        return window_sum(n, p0, eps, z + half, -1)
    centre = n * mp.mpf(p0)
    z = z - mp.sign(z - centre) * min(half, abs(z - centre))
    t = abs(z - centre)
    up, m1 = window_sum(n, p0, eps, centre + t, 1)
    down, m2 = window_sum(n, p0, eps, centre - t, -1)
    return min(up + down, mp.mpf(1)), min(m1, m2)


def main():
    rows = []
    for z, n, p0, eps, alternative in CASES:
        z = snap(z, n, eps)
        value, mass = pvalue(z, n, p0, eps, alternative)
        print(n, p0, alternative, mp.nstr(value, 15), "uncovered mass", mp.nstr(1 - mass, 3), flush=True)
        rows.append(dict(z=z, n=n, p0=p0, epsilon=eps, alternative=alternative, pvalue=mp.nstr(value, 25)))
    OUT.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
