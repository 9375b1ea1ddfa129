#!/usr/bin/python3
"""Plots an experiment's best-so-far curves (called by `tessel experiment run`).

Usage: plot_curves.py RESULTS_DIR
Reads RESULTS_DIR/curves.csv and summary.json and writes RESULTS_DIR/plots/<workload>.png and .svg:
best-so-far GFLOP/s against trials, one line per configuration (the mean over seeds, with the
range over seeds shaded), and the vendor baseline as a dashed line. For a model experiment
(summary.json {"models": [...]}, no curves) it writes one bar chart per model instead: latency of
each configuration, and libtorch's measured beside it on the same thread count; with several models,
also relative.png|svg: per model, each configuration's speedup over the first configuration of the
same thread count (the fusion ablation's figure).
Each plot is written to a temporary file and renamed into place, so a reader never sees half of
one. Exit status: 0 done; 2 a plot could not be written (the last line of output says which and
why); 3 matplotlib is missing.
"""
import csv
import json
import os
import re
import sys
from collections import defaultdict

import tempfile

try:
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt
except ImportError as e:
    print(f"plot_curves.py: matplotlib is not installed ({e})")
    sys.exit(3)  # the caller's sign for "plotting is not available here": a warning, not a failure


def read_curves(path):
    """{workload: {configuration: {seed: [best-so-far per trial]}}}"""
    curves = defaultdict(lambda: defaultdict(dict))
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            seeds = curves[row["workload"]][row["configuration"]]
            seeds.setdefault(row["seed"], []).append(float(row["best_gflops"]))
    return curves


def mean_and_range(runs):
    """Pointwise mean, min and max over seeds, as long as the shortest run."""
    length = min(len(r) for r in runs)
    columns = [[r[t] for r in runs] for t in range(length)]
    return ([sum(c) / len(c) for c in columns], [min(c) for c in columns], [max(c) for c in columns])


def baselines(summary):
    out = {}
    for entry in summary:
        if entry.get("baseline"):
            out[entry["workload"]] = entry["baseline"]
    return out


def plot_workload(workload, configurations, baseline, folder):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, seeds in sorted(configurations.items()):
        mean, low, high = mean_and_range(list(seeds.values()))
        trials = range(1, len(mean) + 1)
        line, = ax.plot(trials, mean, label=f"{label} ({len(seeds)} seeds)")
        ax.fill_between(trials, low, high, color=line.get_color(), alpha=0.15)
    if baseline:
        ax.axhline(baseline["gflops"], color="black", linestyle="--", label=f"{baseline['name']} (baseline)")
    ax.set_xlabel("trials")
    ax.set_ylabel("best GFLOP/s so far")
    ax.set_title(workload)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", workload)
    for ext in ("png", "svg"):
        save_atomically(fig, os.path.join(folder, f"{name}.{ext}"), ext)
    plt.close(fig)


def save_atomically(fig, path, ext):
    """Saves into a temporary file beside `path`, then renames it over `path`."""
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.tmp-", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format=ext)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except OSError as e:
        os.unlink(temporary)
        print(f"plot_curves.py: cannot write '{path}': {e.strerror}")
        sys.exit(2)


def plot_model(model, entries, folder):
    """Bars: each configuration's latency and, per thread count, libtorch's (mean of its measurements)."""
    labels, values, colors = [], [], []
    for e in entries:
        labels.append(e["label"])
        values.append(e["tessel_ms"])
        colors.append("tab:blue")
    torch = defaultdict(list)
    for e in entries:
        if e.get("baseline_ms"):
            torch[e["threads"]].append(e["baseline_ms"])
    for threads, times in sorted(torch.items()):
        labels.append(f"libtorch threads={threads}")
        values.append(sum(times) / len(times))
        colors.append("tab:gray")
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(labels) + 1.5))
    ax.barh(range(len(labels)), values, color=colors)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("latency (ms, median)")
    ax.set_title(os.path.basename(model))
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(model))
    for ext in ("png", "svg"):
        save_atomically(fig, os.path.join(folder, f"{name}.{ext}"), ext)
    plt.close(fig)


def plot_relative(by_model, folder):
    """Grouped bars: per model, each configuration's speedup over the first one at its thread count
    (with the range over rounds as error bars when the experiment ran several)."""
    labels = []
    for entries in by_model.values():
        for e in entries:
            if e["label"] not in labels:
                labels.append(e["label"])
    models = list(by_model)
    fig, ax = plt.subplots(figsize=(max(7, 0.9 * len(models) * len(labels) / 2 + 2), 4.5))
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        speedups, below, above = [], [], []
        for model in models:
            entries = by_model[model]
            e = next((x for x in entries if x["label"] == label), None)
            first = next((x for x in entries if e and x.get("threads") == e.get("threads")), None)
            # The runner's median of the rounds' ratios and their range; older results have neither.
            s = e.get("vs_reference", first["tessel_ms"] / e["tessel_ms"]) if e else 0
            speedups.append(s)
            below.append(s - e.get("vs_reference_low", s) if e else 0)
            above.append(e.get("vs_reference_high", s) - s if e else 0)
        ax.bar([m + (i - (len(labels) - 1) / 2) * width for m in range(len(models))], speedups, width, label=label,
               yerr=[below, above], capsize=2)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels([os.path.splitext(os.path.basename(m))[0] for m in models], rotation=30, ha="right",
                       fontsize="small")
    ax.set_ylabel("speedup over the first configuration")
    ax.legend(fontsize="x-small")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    for ext in ("png", "svg"):
        save_atomically(fig, os.path.join(folder, f"relative.{ext}"), ext)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot_curves.py RESULTS_DIR")
    results = sys.argv[1]
    with open(os.path.join(results, "summary.json")) as f:
        summary = json.load(f)
    if isinstance(summary, dict) and "models" in summary:
        folder = os.path.join(results, "plots")
        os.makedirs(folder, exist_ok=True)
        by_model = defaultdict(list)
        for e in summary["models"]:
            by_model[e["model"]].append(e)
        for model, entries in by_model.items():
            plot_model(model, entries, folder)
        if len(by_model) > 1:
            plot_relative(by_model, folder)
        return
    curves = read_curves(os.path.join(results, "curves.csv"))
    with open(os.path.join(results, "summary.json")) as f:
        base = baselines(json.load(f))
    folder = os.path.join(results, "plots")
    os.makedirs(folder, exist_ok=True)
    for workload, configurations in curves.items():
        plot_workload(workload, configurations, base.get(workload), folder)


if __name__ == "__main__":
    main()
