"""The ``means`` study's measured DP-JIMI error rates with the spread released (generated).

Written by ``python -m validation._means_tails --table`` (see that module for the
grid, the seeds and the CSV columns) from ``means_tails_simulate_quick.csv``; do not edit by hand:
rerun the command.  Read by ``_approx.py`` (the warning rule).
"""

#: model -> rows ``(n, epsilon, near a bound, worst one-sided miss rate (nominal 0.025), its data
#: sets, where, worst two-sided 95% coverage, its data sets, where)``, sorted by n, epsilon, near
SPREAD_RATES = {
    'normal': (
        (80, 0.5, False, 0.0, 7, '30% clipped above, lower bound 6 sd below the mean',
         1.0, 7, '30% clipped above, lower bound 6 sd below the mean'),
        (80, 0.5, True, 0.07253886010362694, 193, '30% clipped above, lower bound 6 sd below the mean',
         0.927461139896373, 193, '30% clipped above, lower bound 6 sd below the mean'),
    ),
    'lognormal': (
    ),
}
