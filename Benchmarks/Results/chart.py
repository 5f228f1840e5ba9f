#!/usr/bin/env python3
"""Draws Benchmarks/Results/ratios.svg from ratios.csv: CoreNetKit's throughput as a share of the
raw transport's at each concurrency, one bar per transport (the median of the runs) with the
range of the runs as a whisker, and lines at 1.0 (as fast as raw) and 0.95 (the target).

Plain Python, no packages: python3 Benchmarks/Results/chart.py
"""
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
rows = [r for r in csv.reader(open(os.path.join(HERE, "ratios.csv"))) if r and not r[0].startswith("#")]
data = {}
# The code issue 42 measured, the last Foundation fix and the head; every run stays in ratios.csv.
shown = ("cbafa91", "79e2ca7", "52070bf")
for transport, c, *runs in rows:
    if transport.split()[-1] in shown:
        data.setdefault(transport, {})[int(c)] = [float(x) for x in runs]

transports = list(data)
levels = sorted({c for t in data.values() for c in t})
colors = {
    "URLSession cbafa91": "#c6dbef", "AHC cbafa91": "#fdd0a2",
    "URLSession f4c89e9": "#6baed6", "AHC f4c89e9": "#fd8d3c",
    "URLSession c2e9ec3": "#2171b5", "AHC c2e9ec3": "#d94801",
    "URLSession 79e2ca7": "#2171b5", "AHC 79e2ca7": "#d94801",
    "URLSession 52070bf": "#08306b", "AHC 52070bf": "#7f2704",
}
rows_of_legend = (len(transports) + 1) // 2
width, height, left, bottom, top = 720, 340 + 20 * rows_of_legend, 60, 50 + 20 * rows_of_legend, 40
low, high = 0.7, 1.2
plot_h = height - bottom - top


def y(value):
    return top + plot_h * (high - value) / (high - low)


group_w = (width - left - 20) / len(levels)
bar_w = group_w / (len(transports) + 1)
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
       f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">CoreNetKit throughput / raw transport (out of process)</text>']
for tick in [0.7, 0.8, 0.9, 1.0, 1.1, 1.2]:
    out.append(f'<line x1="{left}" x2="{width - 20}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>')
    out.append(f'<text x="{left - 8}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.1f}</text>')
for value, dash, label in [(1.0, "", "raw"), (0.95, "4,3", "target 0.95")]:
    out.append(f'<line x1="{left}" x2="{width - 20}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="#333" stroke-dasharray="{dash}"/>')
    out.append(f'<text x="{left + 4}" y="{y(value) - 4:.1f}" fill="#333" font-size="10">{label}</text>')
for i, c in enumerate(levels):
    x0 = left + i * group_w + bar_w / 2
    out.append(f'<text x="{x0 + bar_w * len(transports) / 2:.1f}" y="{height - bottom + 18}" text-anchor="middle">c = {c}</text>')
    for j, t in enumerate(transports):
        runs = data[t].get(c)
        if not runs:
            continue
        median = statistics.median(runs)
        x = x0 + j * bar_w
        out.append(f'<rect x="{x:.1f}" y="{y(median):.1f}" width="{bar_w - 4:.1f}" height="{y(low) - y(median):.1f}" fill="{colors.get(t, "#888")}"/>')
        mid = x + (bar_w - 4) / 2
        out.append(f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{y(max(runs)):.1f}" y2="{y(min(runs)):.1f}" stroke="#000"/>')
        out.append(f'<text x="{mid:.1f}" y="{y(max(runs)) - 4:.1f}" text-anchor="middle" font-size="10">{median:.2f}</text>')
# The legend in rows of two: URLSession and AsyncHTTPClient of the same build side by side.
for j, t in enumerate(transports):
    lx, ly = left + (j % 2) * 260, height - bottom + 32 + (j // 2) * 20
    out.append(f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{colors.get(t, "#888")}"/>')
    out.append(f'<text x="{lx + 16}" y="{ly + 10}">{t}</text>')
out.append("</svg>")
open(os.path.join(HERE, "ratios.svg"), "w").write("\n".join(out) + "\n")
