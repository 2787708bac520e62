#!/usr/bin/env python3
"""Bar chart of the end-to-end benchmark's summary CSV.

Usage: python e2e_plot.py <summary.csv> <out.png>

One panel per dataset, one horizontal bar per configuration, showing the
median records/s. Only matplotlib and the standard library are used so the
benchmark can install it from requirements.txt alone.
"""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: runs headless on CI and benchmark hosts
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

TITLE = "End to end: topic to committed batch (median records/s)"
# Only the columns the chart uses are required, so the benchmark can add
# columns to the summary without breaking the plot.
REQUIRED = ["sink", "dataset", "input", "tasks", "batch_records", "mode",
            "median_records_per_s"]

# Fixed orders make bar positions comparable between runs and panels;
# anything unknown sorts after the known values instead of failing.
SINK_ORDER = ["hive-sink", "iceberg", "consumer"]
FORMAT_ORDER = ["avro", "parquet", "-"]
INPUT_ORDER = ["passthrough", "struct"]
MODE_ORDER = ["pipelined", "serial", "-"]
DATASET_ORDER = ["stockquote", "wide300"]
SINK_COLOUR = {"hive-sink": "#1f77b4", "iceberg": "#ff7f0e", "consumer": "#2ca02c"}
OTHER_COLOUR = "#7f7f7f"


def die(msg):
    sys.exit(f"e2e_plot: {msg}")


def rank(order, value):
    return (order.index(value), "") if value in order else (len(order), value)


def short(n):
    """100000 -> '100k', 1000000 -> '1M', 1500000 -> '1.5M'."""
    for scale, unit in ((1e6, "M"), (1e3, "k")):
        if abs(n) >= scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n:.3g}"


def lighter(colour, amount=0.55):
    # Serial runs share their sink's hue so the eye groups by sink first.
    return tuple(c + (1 - c) * amount for c in to_rgb(colour))


def read_rows(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
            if missing:
                die(f"{path} is missing column(s): {', '.join(missing)} "
                    f"(header: {','.join(reader.fieldnames or [])})")
            rows = []
            for row in reader:
                try:
                    row["tasks"] = int(row["tasks"])
                    # iceberg may leave the batch blank or 0: its commit
                    # interval decides, so there is no batch to show.
                    row["batch_records"] = int(row["batch_records"] or 0)
                    row["median_records_per_s"] = float(row["median_records_per_s"])
                except ValueError as e:
                    die(f"{path} line {reader.line_num}: {e}")
                rows.append(row)
    except OSError as e:
        die(f"cannot read {path}: {e}")
    if not rows:
        die(f"{path} has no data rows")
    return rows


def sort_key(row):
    # a summary written before the format was a column holds Avro runs only
    return (rank(FORMAT_ORDER, row.get("format") or "avro"),
            rank(SINK_ORDER, row["sink"]), rank(INPUT_ORDER, row["input"]),
            row["tasks"], row["batch_records"], rank(MODE_ORDER, row["mode"]))


def label(row):
    if row["sink"] == "consumer":
        return "consumer, the ceiling (ConsumerPerformance)"
    fmt = row.get("format") or "avro"
    parts = [f"{row['sink']} {fmt} {row['input']}",
             f"{row['tasks']} task{'s' if row['tasks'] != 1 else ''}"]
    if row["sink"] != "iceberg" and row["batch_records"] > 0:
        parts.append(f"batch {short(row['batch_records'])}")
    if row["mode"] not in ("", "-"):
        parts.append(row["mode"])
    return ", ".join(parts)


def colour(row):
    base = SINK_COLOUR.get(row["sink"], OTHER_COLOUR)
    return lighter(base) if row["mode"] == "serial" else base


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: e2e_plot.py <summary.csv> <out.png>")
    csv_path, out_path = argv[1], argv[2]
    rows = read_rows(csv_path)

    by_dataset = {}
    for row in rows:
        by_dataset.setdefault(row["dataset"], []).append(row)
    datasets = sorted(by_dataset, key=lambda d: rank(DATASET_ORDER, d))
    most_bars = max(len(v) for v in by_dataset.values())

    # Panels side by side keep 1400 px width; height grows with the bar
    # count so labels never overlap however large the matrix gets.
    fig, axes = plt.subplots(1, len(datasets), squeeze=False,
                             figsize=(14, max(4.0, 1.8 + 0.34 * most_bars)),
                             dpi=100)
    for ax, dataset in zip(axes[0], datasets):
        data = sorted(by_dataset[dataset], key=sort_key)  # sorted() is stable
        values = [r["median_records_per_s"] for r in data]
        ys = range(len(data))
        ax.barh(ys, values, color=[colour(r) for r in data], height=0.7)
        ax.set_yticks(ys, [label(r) for r in data], fontsize=9)
        ax.invert_yaxis()  # first in sort order at the top, as it is read
        for y, v in zip(ys, values):
            ax.text(v, y, f" {short(v)}/s", va="center", ha="left", fontsize=8)
        # Headroom on the right so the value text stays inside the axes.
        ax.set_xlim(0, max(max(values), 1) * 1.18)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: short(x)))
        ax.grid(axis="x", alpha=0.3)
        ax.set_axisbelow(True)
        ax.set_title(dataset)
        ax.set_xlabel("records/s (median)")

    sinks = sorted({r["sink"] for r in rows}, key=lambda s: rank(SINK_ORDER, s))
    handles = []
    for s in sinks:
        base = SINK_COLOUR.get(s, OTHER_COLOUR)
        modes = {r["mode"] for r in rows if r["sink"] == s}
        if "serial" in modes:
            handles += [Patch(color=base, label=f"{s} pipelined"),
                        Patch(color=lighter(base), label=f"{s} serial")]
        else:
            handles.append(Patch(color=base, label=s))
    fig.suptitle(TITLE, fontsize=13)
    fig.legend(handles=handles, loc="lower center", ncol=len(handles),
               frameon=False, fontsize=9)
    fig.tight_layout(rect=(0, 0.05, 1, 1))  # leave the bottom for the legend

    Path(out_path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_path)
    print(f"e2e_plot: wrote {out_path}")


if __name__ == "__main__":
    main(sys.argv)
