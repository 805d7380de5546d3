"""A PNG of the temperature field every `frequency` iterations, drawn on the first server with
matplotlib (Agg backend: no display): the servers send their blocks' interiors and offsets to
it over the servers' communicator, and it writes temperature-<iteration>.png."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ecluse import insitu  # noqa: E402


def main(DD):
    comm = insitu.server_comm()
    # np.array: a copy, sent to the first server (the views are only valid in this call).
    mine = [(offsets, np.array(a)) for _, offsets, a in insitu.blocks(DD, "temperature")]
    gathered = comm.gather(mine, root=0)
    if comm.Get_rank() != 0:
        return
    pieces = [p for server in gathered for p in server]
    shape = tuple(max(o[d] + a.shape[d] for o, a in pieces) for d in range(2))
    field = np.full(shape, np.nan)
    for (x0, y0), a in pieces:
        field[x0:x0 + a.shape[0], y0:y0 + a.shape[1]] = a
    iteration = insitu.iteration(DD)
    figure, axes = plt.subplots(figsize=(5, 4))
    image = axes.imshow(field, origin="lower", cmap="inferno")
    figure.colorbar(image, ax=axes, label="K")
    axes.set_title(f"temperature, iteration {iteration}")
    figure.savefig(f"temperature-{iteration}.png", dpi=80)
    plt.close(figure)
    print(f"slice: temperature-{iteration}.png {shape[0]}x{shape[1]}", flush=True)
