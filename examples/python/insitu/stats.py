"""Per-variable statistics across every server, each iteration: count, min, max, mean and
standard deviation of each variable's interior cells, printed by the first server and appended
to stats.csv. The blocks are read in place (no copy)."""
import numpy as np

from ecluse import insitu


def local_moments(DD, name):
    """count, sum, sum of squares, min, max of this server's blocks of a variable."""
    values = [a for _, _, a in insitu.blocks(DD, name)]
    if not values:
        return 0, 0.0, 0.0, np.inf, -np.inf
    return (sum(a.size for a in values), sum(float(a.sum()) for a in values),
            sum(float(np.square(a, dtype=np.float64).sum()) for a in values),
            min(float(a.min()) for a in values), max(float(a.max()) for a in values))


def main(DD):
    comm = insitu.server_comm()
    data = DD["iteration_data"]
    for name in sorted(k for k in data if k != "iteration"):
        moments = comm.gather(local_moments(DD, name), root=0)
        if comm.Get_rank() != 0:
            continue
        n = sum(m[0] for m in moments)
        total, squares = sum(m[1] for m in moments), sum(m[2] for m in moments)
        mean = total / n
        std = max(squares / n - mean * mean, 0.0) ** 0.5
        low, high = min(m[3] for m in moments), max(m[4] for m in moments)
        line = f"{data['iteration']},{name},{n},{low:.17g},{high:.17g},{mean:.17g},{std:.17g}"
        print(f"stats: {line}", flush=True)
        with open("stats.csv", "a") as f:
            f.write(line + "\n")
