"""Peak memory of DP-JIMI for a clipped mean: draws in blocks against one block (issue 40).

Each measurement runs in a fresh interpreter (peak resident memory is per process):
``mean_jimi_test`` at n = 50 with the spread released, as shipped (blocks of about 4e6 seed
values) and with one block for every draw (the code before blocks), which the same run uses
as its baseline.  The two p-values are printed too: they are equal (same stream).

    python benchmarks/bench_means_memory.py [n_sim]     # default 200000
"""

import subprocess
import sys

_CHILD = r"""
import resource, sys
import numpy as np
import dpinfer
import dpinfer.inference.means._common as common
if sys.argv[2] == "one-block":
    common._BLOCK = 10**12
rel = dpinfer.MeanReleaser(1.0, 0.0, 10.0, spread=True).release(np.linspace(1.0, 9.0, 50), rng=1)
res = dpinfer.mean_jimi_test(rel, 4.0, n_sim=int(sys.argv[1]), rng=1)
print(res.pvalue, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def _peak(n_sim, mode):
    out = subprocess.run([sys.executable, "-c", _CHILD, str(n_sim), mode], capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), float(out[1])


def main(n_sim=200_000):
    p_blocks, mb_blocks = _peak(n_sim, "blocks")
    p_one, mb_one = _peak(n_sim, "one-block")
    print(f"mean_jimi_test, n = 50, n_sim = {n_sim}: peak {mb_blocks:.0f} MB in blocks, {mb_one:.0f} MB in one "
          f"block (ratio {mb_blocks / mb_one:.2f}); p-values {p_blocks!r} and {p_one!r} "
          f"({'equal' if p_blocks == p_one else 'DIFFERENT'})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
