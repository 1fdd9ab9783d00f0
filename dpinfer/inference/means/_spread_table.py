"""The ``means`` study's measured DP-JIMI error rates with the spread released (generated).

Written by ``python -m validation._means_tails --table`` or ``python -m
validation._means_tails_two_group --table`` (see those modules for the grids, the
seeds and the CSV columns) from ``means_tails_simulate.csv`` and
``means_tails_two_group_simulate.csv`` (the runs kept in ``validation/results/``; ``--from-csv``
rewrites this module from them); do not edit by hand: rerun the command.  Read by
``_approx.py`` (the warning rule).
"""

#: model -> rows ``(n, epsilon, data sets, worst one-sided miss rate (nominal 0.025), where,
#: worst two-sided 95% coverage, where)``, sorted by n then epsilon: one group (mean_jimi_test)
SPREAD_RATES = {
    'normal': (
        (30, 0.5, 2000, 0.0615, '30% clipped above, lower bound 6 sd below the mean',
         0.9345, '30% clipped above, lower bound 6 sd below the mean'),
        (30, 1.0, 2000, 0.082, '30% clipped above, lower bound 6 sd below the mean',
         0.9165000000000001, '30% clipped above, lower bound 6 sd below the mean'),
        (30, 3.0, 2000, 0.086, '30% clipped above, lower bound 6 sd below the mean',
         0.9115000000000001, '30% clipped above, lower bound 6 sd below the mean'),
        (80, 0.5, 2000, 0.0785, '30% clipped above, lower bound 6 sd below the mean',
         0.9205, '30% clipped above, lower bound 6 sd below the mean'),
        (80, 1.0, 2000, 0.062, '30% clipped above, lower bound 6 sd below the mean',
         0.9369999999999999, '30% clipped above, lower bound 6 sd below the mean'),
        (80, 3.0, 2000, 0.0355, '30% clipped above, lower bound 6 sd below the mean',
         0.9375, '30% clipped above'),
        (100, 0.5, 2000, 0.0725, '30% clipped above, lower bound 6 sd below the mean',
         0.9265, '30% clipped above, lower bound 6 sd below the mean'),
        (100, 1.0, 2000, 0.0425, '30% clipped above, lower bound 6 sd below the mean',
         0.9465, '20% clipped above'),
        (100, 3.0, 2000, 0.04, '40% clipped above',
         0.9455, '30% clipped above'),
        (500, 0.5, 1000, 0.042, '40% clipped above',
         0.946, 'nothing clipped'),
        (500, 1.0, 1000, 0.03, '30% clipped above',
         0.95, '30% clipped above'),
        (500, 3.0, 1000, 0.033, '40% clipped above, lower bound 6 sd below the mean',
         0.943, '20% clipped above'),
    ),
    'lognormal': (
        (30, 0.5, 1000, 0.052, '20% clipped above',
         0.9349999999999999, '20% clipped above'),
        (30, 1.0, 1000, 0.04, '20% clipped above',
         0.944, 'nothing clipped'),
        (30, 3.0, 1000, 0.039, '20% clipped above',
         0.939, '20% clipped above'),
        (100, 0.5, 1000, 0.038, '20% clipped above',
         0.949, '5% clipped above'),
        (100, 1.0, 1000, 0.037, '20% clipped above',
         0.9359999999999999, '20% clipped above'),
        (100, 3.0, 1000, 0.032, '40% clipped above',
         0.946, '30% clipped above'),
    ),
}

#: the same for two groups (mean2_jimi_test): n and epsilon per group, data sets = pairs,
#: coverage of the difference of the means
SPREAD2_RATES = {
    'normal': (
        (30, 0.5, 2000, 0.0235, 'each group: nothing clipped',
         0.9540000000000001, 'each group: nothing clipped'),
        (30, 1.0, 2000, 0.028, 'group 1 30% and group 2 10% clipped above (different laws)',
         0.951, 'each group: nothing clipped'),
        (30, 3.0, 2000, 0.026, 'each group: 20% clipped above',
         0.951, 'each group: nothing clipped'),
        (80, 0.5, 2000, 0.0275, 'group 1 40% and group 2 20% clipped above (different laws)',
         0.95, 'each group: nothing clipped'),
        (80, 1.0, 2000, 0.033, 'group 1 30% and group 2 10% clipped above (different laws)',
         0.9540000000000001, 'each group: nothing clipped'),
        (80, 3.0, 2000, 0.0285, 'each group: nothing clipped',
         0.9465, 'each group: nothing clipped'),
        (500, 0.5, 1000, 0.027, 'each group: nothing clipped',
         0.948, 'each group: nothing clipped'),
        (500, 1.0, 1000, 0.035, 'each group: nothing clipped',
         0.941, 'each group: nothing clipped'),
        (500, 3.0, 1000, 0.03, 'each group: 30% clipped above, lower bound 6 sd below the mean',
         0.945, 'each group: 30% clipped above, lower bound 6 sd below the mean'),
    ),
    'lognormal': (
        (30, 0.5, 1000, 0.018, 'each group: 20% clipped above',
         0.973, 'each group: 20% clipped above'),
        (30, 1.0, 1000, 0.025, 'each group: 20% clipped above',
         0.956, 'each group: 20% clipped above'),
        (30, 3.0, 1000, 0.03, 'each group: 40% clipped above',
         0.949, 'each group: 40% clipped above'),
        (80, 0.5, 1000, 0.022, 'each group: 20% clipped above',
         0.96, 'each group: 20% clipped above'),
        (80, 1.0, 1000, 0.025, 'each group: 40% clipped above',
         0.954, 'each group: 20% clipped above'),
        (80, 3.0, 1000, 0.035, 'each group: nothing clipped',
         0.939, 'each group: nothing clipped'),
    ),
}
