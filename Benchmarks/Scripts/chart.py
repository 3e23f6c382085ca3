#!/usr/bin/env python3
"""Draws the cost of a post against the number of recipients as an SVG line chart (log-log axes).

    Scripts/chart.py [CSV] [SVG]

CSV defaults to Benchmarks/Results/curve.csv (written by `Comparison --curve --results Results`), SVG to
docs/performance-curve.svg. The CSV's first column is the number of recipients; every other column is one
series, in nanoseconds per post. The legend sits under the plot, so that no line runs beneath it whatever the
figures. Python 3 standard library only.
"""

import csv
import math
import os
import sys
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = os.path.join(HERE, "..", "Results", "curve.csv")
DEFAULT_SVG = os.path.join(HERE, "..", "..", "docs", "performance-curve.svg")

# Each known column: its label, colour and dash pattern. A system's main-actor line has its synchronous line's
# hue, lighter and dashed.
STYLES = {
    "mailroom_ns_per_post": ("Mailroom, closures", "#d62728", ""),
    "notificationcenter_ns_per_post": ("NotificationCenter, block observers", "#1f77b4", ""),
    "bare_ns_per_post": ("bare loop over the same closures (floor)", "#7f7f7f", "6 4"),
    "mailroom_main_actor_ns_per_post": ("Mailroom, main-actor closures, posted on the main actor", "#ff7f0e", "8 3"),
    "foundation_main_actor_message_ns_per_post": (
        "Foundation MainActorMessage observers, posted on the main actor",
        "#17becf",
        "8 3",
    ),
}
X_LABELS = {"recipients": "recipients of the posted mail type"}
# For columns STYLES does not know.
COLORS = ["#2ca02c", "#9467bd", "#8c564b", "#e377c2"]
DASHES = ["2 3", "8 3 2 3"]

WIDTH = 760
LEFT, RIGHT, TOP, BOTTOM = 90, 30, 50, 70
PLOT_HEIGHT = 360
LEGEND_ROW = 20


def read_series(path):
    with open(path, newline="") as handle:
        rows = [row for row in csv.reader(handle) if row]
    header, body = rows[0], rows[1:]
    xs = [float(row[0]) for row in body]
    series = []
    for column in range(1, len(header)):
        ys = [float(row[column]) for row in body]
        unknown = column - 1
        style = STYLES.get(
            header[column], (header[column], COLORS[unknown % len(COLORS)], DASHES[unknown % len(DASHES)])
        )
        series.append((style, ys))
    return header[0], xs, series


def decades(low, high):
    """Powers of ten covering [low, high]."""
    first = math.floor(math.log10(low))
    last = math.ceil(math.log10(high))
    if first == last:
        last += 1
    return first, last


def tick_label(exponent):
    value = 10 ** exponent
    if exponent >= 6:
        return f"{value / 1e6:g} M"
    if exponent >= 3:
        return f"{value / 1e3:g} k"
    return f"{value:g}"


def draw(x_name, xs, series):
    ys_all = [y for _, ys in series for y in ys if y > 0]
    x_first, x_last = decades(min(xs), max(xs))
    y_first, y_last = decades(min(ys_all), max(ys_all))
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = PLOT_HEIGHT
    legend_top = TOP + plot_h + BOTTOM
    height = legend_top + LEGEND_ROW * len(series) + 10

    def px(x):
        return LEFT + (math.log10(x) - x_first) / (x_last - x_first) * plot_w

    def py(y):
        return TOP + plot_h - (math.log10(y) - y_first) / (y_last - y_first) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
        f'<text x="{WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">'
        "Cost of one synchronous post against the number of recipients</text>",
    ]
    # Grid and ticks: every decade labelled, 2..9 as light lines.
    for exponent in range(x_first, x_last + 1):
        x = px(10 ** exponent)
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + plot_h}" stroke="#ddd"/>')
        out.append(
            f'<text x="{x:.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">{tick_label(exponent)}</text>'
        )
    for exponent in range(y_first, y_last + 1):
        y = py(10 ** exponent)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{tick_label(exponent)}</text>')
        if exponent < y_last:
            for minor in range(2, 10):
                ym = py(minor * 10 ** exponent)
                out.append(
                    f'<line x1="{LEFT}" y1="{ym:.1f}" x2="{LEFT + plot_w}" y2="{ym:.1f}" stroke="#f2f2f2"/>'
                )
    out.append(
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#333"/>'
    )
    out.append(
        f'<text x="{LEFT + plot_w / 2}" y="{TOP + plot_h + 48}" text-anchor="middle">'
        f"{escape(X_LABELS.get(x_name, x_name))} (log scale)</text>"
    )
    out.append(
        f'<text transform="translate(22 {TOP + plot_h / 2}) rotate(-90)" text-anchor="middle">'
        "nanoseconds per post (log scale)</text>"
    )
    # Series.
    for (label, color, dash), ys in series:
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys) if y > 0)
        dash_attribute = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"{dash_attribute}/>'
        )
        for x, y in zip(xs, ys):
            if y > 0:
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="{color}">'
                           f"<title>{escape(label)}: {y:g} ns per post at {x:g}</title></circle>")
    # Legend, under the plot, one series a row.
    legend_x = LEFT
    for index, ((label, color, dash), _) in enumerate(series):
        y = legend_top + LEGEND_ROW * index
        dash_attribute = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<line x1="{legend_x}" y1="{y}" x2="{legend_x + 30}" y2="{y}" stroke="{color}" '
            f'stroke-width="2"{dash_attribute}/>'
        )
        out.append(f'<text x="{legend_x + 38}" y="{y + 4}">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    csv_path = argv[1] if len(argv) > 1 else DEFAULT_CSV
    svg_path = argv[2] if len(argv) > 2 else DEFAULT_SVG
    x_name, xs, series = read_series(csv_path)
    with open(svg_path, "w") as handle:
        handle.write(draw(x_name, xs, series))
    print(f"wrote {os.path.normpath(svg_path)}")


if __name__ == "__main__":
    main(sys.argv)
