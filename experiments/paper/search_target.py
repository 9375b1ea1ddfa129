#!/usr/bin/python3
"""Checks issue 3's search target on finished paper experiments.

Usage: search_target.py RESULTS_DIR [RESULTS_DIR ...]
Reads each folder's summary.json and prints, per configuration label, trials_to_95pct per workload
and its mean over workloads, then the ratio of model_based+xgboost's mean to random's (the target:
at most 1/3). A mean that includes runs which never reached 95% is a lower bound; it is marked '>='.
"""
import json
import os
import sys
from collections import defaultdict


def load(folders):
    """{label: {workload: (trials_to_95pct, every seed reached 95%)}}"""
    table = defaultdict(dict)
    for folder in folders:
        with open(os.path.join(folder, "summary.json")) as f:
            for entry in json.load(f):
                table[entry["label"]][entry["workload"]] = (entry["trials_to_95pct"],
                                                            entry["reached_95pct"] == entry["seeds"])
    return table


def mean(cells):
    return sum(t for t, _ in cells) / len(cells), all(done for _, done in cells)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    table = load(sys.argv[1:])
    means = {}
    for label, per_workload in sorted(table.items()):
        means[label] = mean(list(per_workload.values()))
        cells = ", ".join(f"{w} {t:.1f}{'' if done else '+'}" for w, (t, done) in sorted(per_workload.items()))
        value, exact = means[label]
        print(f"{label:24} mean {'' if exact else '>='}{value:.1f}   ({cells})")
    if "model_based+xgboost" in means and "random" in means:
        (mb, mb_exact), (rnd, rnd_exact) = means["model_based+xgboost"], means["random"]
        bound = "" if mb_exact and rnd_exact else " (random's mean is a lower bound: the true ratio is smaller)" \
            if mb_exact else " (both means include censored runs)"
        print(f"model_based+xgboost / random = {mb / rnd:.2f}; target <= 0.33{bound}")


if __name__ == "__main__":
    main()
