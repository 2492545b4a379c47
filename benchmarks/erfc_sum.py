"""Fast ε-exact erfc sums against direct summation (Raykar et al. §5, Figure 2).

N = M points from a standard normal, q = 1.  For each size and eps: time of
``erfc_sum(method="fast")``, of the direct Numba sum and of ``scipy.special.erfc``
vectorised (both measured on a subsample of targets and extrapolated to all M
above ``--full-direct-max``), and the maximum error of ``fast`` relative to Σ|q| on
the subsample.  The floor column is one pass that any sum over sorted data pays:
``np.sort`` of the targets and of the sources, measured in the same run.  Writes a JSON file and a PNG reproducing the paper's Figure 2
(time vs N, error vs N, speed-up and error vs eps at N = 3 000).

Run:  python benchmarks/erfc_sum.py [--sizes 3200 12800 51200 204800] [--quick]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy.special import erfc

import boostrank as br

from _common import pyplot, save_figure, write_json

HERE = Path(__file__).resolve().parent


def best_time(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def scipy_sum(y, z, chunk=256):
    out = np.empty(y.size)
    for a in range(0, y.size, chunk):
        out[a:a + chunk] = erfc(y[a:a + chunk, None] - z[None, :]).sum(axis=1)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[3200, 12800, 51200, 204800])
    ap.add_argument("--eps", type=float, nargs="+", default=[1e-3, 1e-6, 1e-10])
    ap.add_argument("--full-direct-max", type=int, default=12800,
                    help="largest N evaluated directly at every target; above, a subsample is timed")
    ap.add_argument("--subsample", type=int, default=400)
    ap.add_argument("--quick", action="store_true", help="sizes up to 51 200, smaller subsample")
    ap.add_argument("--json", default=str(HERE / "results" / "erfc_sum.json"))
    ap.add_argument("--png", default=str(HERE / "results" / "erfc_sum_figure2.png"))
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes = [s for s in args.sizes if s <= 51200]
        args.subsample = 200
    rng = np.random.default_rng(0)
    br.erfc_sum(np.zeros(3), np.zeros(3), method="exact")  # load the numba cache
    br.erfc_sum(np.zeros(3), np.zeros(3))
    rows = []
    print(f"{'N=M':>7} {'eps':>7} {'fast ms':>9} {'sort ms':>8} {'÷sort':>6} {'direct s':>10} {'scipy s':>9} "
          f"{'speed-up':>9} {'vs scipy':>9} {'max err/Q':>10}")
    for n in args.sizes:
        y, z = rng.normal(size=n), rng.normal(size=n)
        full = n <= args.full_direct_max
        sub = np.arange(n) if full else rng.choice(n, size=args.subsample, replace=False)
        t_direct, exact = best_time(lambda: br.erfc_sum(y[sub], z, method="exact"), 1)
        t_scipy, _ = best_time(lambda: scipy_sum(y[sub], z), 1)
        t_direct *= n / sub.size
        t_scipy *= n / sub.size
        t_sort, _ = best_time(lambda: (np.sort(y), np.sort(z)), 20)
        for eps in args.eps:
            t_fast, fast = best_time(lambda: br.erfc_sum(y, z, eps=eps), 20)
            err = float(np.max(np.abs(fast[sub] - exact)) / n)
            row = {"n": n, "eps": eps, "fast_s": t_fast, "sort_floor_s": t_sort, "direct_s": t_direct,
                   "scipy_s": t_scipy,
                   "direct_extrapolated": not full, "speedup_vs_direct": t_direct / t_fast,
                   "speedup_vs_scipy": t_scipy / t_fast, "max_rel_error": err}
            rows.append(row)
            print(f"{n:>7} {eps:>7.0e} {t_fast * 1e3:>9.2f} {t_sort * 1e3:>8.2f} {t_fast / t_sort:>5.1f}x "
                  f"{t_direct:>9.2f}{'*' if not full else ' '} "
                  f"{t_scipy:>8.2f}{'*' if not full else ' '} {row['speedup_vs_direct']:>8.0f}x "
                  f"{row['speedup_vs_scipy']:>8.0f}x {err:>10.1e}")
    print("* extrapolated from a subsample of targets")

    # Figure 2 (c, d): speed-up and error against eps at N = M = 3 000.
    n = 3000
    y, z = rng.normal(size=n), rng.normal(size=n)
    t_direct, exact = best_time(lambda: br.erfc_sum(y, z, method="exact"), 1)
    sweep = []
    for eps in 10.0 ** -np.arange(1, 16):
        t_fast, fast = best_time(lambda: br.erfc_sum(y, z, eps=eps), 5)
        sweep.append({"eps": eps, "speedup": t_direct / t_fast, "max_rel_error": float(np.max(np.abs(fast - exact)) / n)})

    write_json(args.json, {"rows": rows, "eps_sweep_n3000": sweep})
    plot(rows, sweep, args.png)
    print(f"wrote {args.png}")


def plot(rows, sweep, path):
    plt = pyplot()

    fig, ax = plt.subplots(2, 2, figsize=(10, 8))
    sizes = sorted({r["n"] for r in rows})
    direct = [next(r["direct_s"] for r in rows if r["n"] == n) for n in sizes]
    ax[0, 0].loglog(sizes, direct, "k--o", label="direct")
    for eps in sorted({r["eps"] for r in rows}):
        sel = [r for r in rows if r["eps"] == eps]
        ax[0, 0].loglog([r["n"] for r in sel], [r["fast_s"] for r in sel], "-o", label=f"fast eps={eps:g}")
        ax[0, 1].loglog([r["n"] for r in sel], [max(r["max_rel_error"], 1e-18) for r in sel], "-o",
                        label=f"fast eps={eps:g}")
        ax[0, 1].axhline(eps, ls=":", lw=0.8)
    ax[0, 0].set(xlabel="N = M", ylabel="time (s)", title="(a) time")
    ax[0, 1].set(xlabel="N = M", ylabel="max |error| / Q_abs", title="(b) error (dotted: eps)")
    e = [s["eps"] for s in sweep]
    ax[1, 0].loglog(e, [s["speedup"] for s in sweep], "-o")
    ax[1, 0].set(xlabel="eps", ylabel="speed-up over direct", title="(c) N = M = 3 000")
    ax[1, 1].loglog(e, [max(s["max_rel_error"], 1e-18) for s in sweep], "-o", label="actual")
    ax[1, 1].loglog(e, e, "k:", label="bound")
    ax[1, 1].set(xlabel="eps", ylabel="max |error| / Q_abs", title="(d) N = M = 3 000")
    for a in ax.flat:
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=7)
    save_figure(fig, path)


if __name__ == "__main__":
    main()
