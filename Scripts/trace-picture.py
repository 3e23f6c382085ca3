#!/usr/bin/env python3
"""Draws the spans of several processes on one timeline, as an SVG: a lane per process, a bar per span (a span
under its parent in the same lane), and an arrow from a span to its parent or linked span in another process.

    Scripts/trace-picture.py [--title TITLE] [--width PIXELS] [--trace ID] LANE=FILE... > picture.svg

Each FILE is what one process printed; LANE names its lane ("posting process"). Its spans are the lines that are a
JSON object, or a word and a JSON object (`span {...}`, as `LinkPeer --trace` prints them), with at least `name`,
`spanID`, `start` and `end` (nanoseconds since the epoch, the tracer's clock: the processes must share a machine);
`kind`, `parentSpanID`, `links` (a list of objects with a `spanID`) and Mailroom's attributes (`mailroom.sequence`
of a link's received mail, `mailroom.delivery.place` of a delivery, as `type value` strings) are drawn when given.
Only the spans of one trace are drawn: `--trace ID`'s (`traceID`), by default the trace of the first lane's last
span. Other lines are skipped. Standard library only.
"""

import html
import json
import sys

# Light background, the colours of the repository's other charts.
LANE_COLOURS = [("#dbe9f6", "#1f77b4"), ("#fde5cf", "#ff7f0e"), ("#dcefdc", "#2ca02c"), ("#f6d9d9", "#d62728")]
BAR, GAP, LANE_GAP, LEFT, RIGHT, TOP = 24, 8, 34, 20, 20, 20
CHAR = 6.6  # the width of a character at 12 px, about, to tell whether a label fits in its bar


def read_spans(path):
    spans = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            line = line.strip()
            brace = line.find("{")
            if brace < 0 or " " in line[:brace].strip():
                continue
            try:
                span = json.loads(line[brace:])
            except json.JSONDecodeError:
                continue
            if isinstance(span, dict) and {"name", "spanID", "start", "end"} <= span.keys():
                spans.append(span)
    return spans


def attribute(span, name):
    """The value of a `type value` attribute, such as `int64 3`, or None."""
    value = (span.get("attributes") or {}).get(name)
    return value.split(" ", 1)[-1] if value else None


def describe(span):
    """What is written after a span's name: its kind, its duration and, for Mailroom's spans, what made it."""
    words = [span.get("kind"), duration(span["end"] - span["start"])]
    if attribute(span, "mailroom.delivery.place"):
        words.append("delivery on a " + attribute(span, "mailroom.delivery.place").replace("_", " "))
    elif attribute(span, "mailroom.sequence"):
        words.append("received mail #" + attribute(span, "mailroom.sequence"))
    return ", ".join(filter(None, words))


def nice_step(span_ns, ticks=6):
    """A step of 1, 2 or 5 times a power of ten, in nanoseconds, giving about `ticks` ticks over `span_ns`."""
    raw = max(span_ns / ticks, 1)
    power = 1
    while power * 10 <= raw:
        power *= 10
    for factor in (1, 2, 5, 10):
        if power * factor >= raw:
            return power * factor
    return power * 10


def duration(ns):
    if ns >= 1_000_000:
        return f"{ns / 1e6:.1f} ms"
    return f"{ns / 1e3:.0f} µs"


def tick_label(ns):
    if ns == 0:
        return "0"
    if ns >= 1_000_000:
        ms = ns / 1e6
        return f"{ms:g} ms"
    return f"{ns / 1e3:g} µs"


def main(argv):
    title, width, trace, lanes = None, 700, None, []
    args = iter(argv)
    for arg in args:
        if arg == "--title":
            title = next(args)
        elif arg == "--trace":
            trace = next(args)
        elif arg == "--width":
            width = int(next(args))
        elif "=" in arg:
            name, path = arg.split("=", 1)
            lanes.append((name, read_spans(path)))
        else:
            sys.exit(__doc__)
    if not lanes or not any(spans for _, spans in lanes):
        sys.exit("no spans with name, spanID, start and end in the files given\n" + __doc__)

    if trace is None:
        first = next(spans for _, spans in lanes if spans)
        trace = max(first, key=lambda span: span["start"]).get("traceID")
    lanes = [(name, [span for span in spans if span.get("traceID") == trace]) for name, spans in lanes]
    everything = [span for _, spans in lanes for span in spans]
    t0 = min(span["start"] for span in everything)
    t1 = max(span["end"] for span in everything)
    scale = (width - LEFT - RIGHT) / max(t1 - t0, 1)

    def x(t):
        return LEFT + (t - t0) * scale

    out = []
    y = TOP
    if title:
        out.append(f'<text x="{width / 2}" y="{y + 4}" text-anchor="middle" font-size="15" font-weight="bold">'
                   f"{html.escape(title)}</text>")
        y += 22
    boxes = {}  # spanID -> (x1, x2, top, lane index)
    for index, (name, spans) in enumerate(lanes):
        fill, stroke = LANE_COLOURS[index % len(LANE_COLOURS)]
        band = len(out)  # the lane's background, put in once its height is known
        out.append(f'<text x="{LEFT}" y="{y + 12}" font-weight="bold">{html.escape(name)}</text>')
        lane_top = y - 6
        y += 20
        own = {span["spanID"] for span in spans}

        def depth(span, seen=()):
            parent = span.get("parentSpanID")
            if parent in own and parent not in seen:
                return 1 + depth(next(s for s in spans if s["spanID"] == parent), seen + (span["spanID"],))
            return 0

        rows = 0
        for span in sorted(spans, key=lambda s: (depth(s), s["start"])):
            row = depth(span)
            rows = max(rows, row + 1)
            top = y + row * (BAR + GAP)
            x1, x2 = x(span["start"]), max(x(span["end"]), x(span["start"]) + 2)
            boxes[span["spanID"]] = (x1, x2, top, index)
            out.append(f'<rect x="{x1:.1f}" y="{top}" width="{x2 - x1:.1f}" height="{BAR}" rx="3" fill="{fill}" '
                       f'stroke="{stroke}"/>')
            label = span["name"]
            detail = describe(span)
            text = f'{html.escape(label)} <tspan fill="#666">{html.escape(detail)}</tspan>'
            length = (len(label) + 1 + len(detail)) * CHAR
            if x2 - x1 >= length + 12:
                out.append(f'<text x="{x1 + 6:.1f}" y="{top + 16}">{text}</text>')
            elif x2 + 6 + length <= width - 4:
                out.append(f'<text x="{x2 + 6:.1f}" y="{top + 16}">{text}</text>')
            else:
                out.append(f'<text x="{x1 - 6:.1f}" y="{top + 16}" text-anchor="end">{text}</text>')
        y += rows * (BAR + GAP) - GAP
        out.insert(band, f'<rect x="{LEFT - 10}" y="{lane_top}" width="{width - LEFT - RIGHT + 20}" '
                         f'height="{y + 8 - lane_top}" rx="4" fill="#f7f7f7"/>')
        y += LANE_GAP

    # Arrows to a span in another lane: its parent, or a span it links to.
    arrows = []
    for _, spans in lanes:
        for span in spans:
            child = boxes[span["spanID"]]
            targets = {}
            if span.get("parentSpanID") in boxes:
                targets[span["parentSpanID"]] = ["parent"]
            for link in span.get("links") or []:
                if link.get("spanID") in boxes:
                    targets.setdefault(link["spanID"], []).append("link")
            for target, kinds in targets.items():
                parent = boxes[target]
                if parent[3] == child[3]:
                    continue
                start_x = min(parent[1], child[0])
                start_y = parent[2] + BAR if parent[2] < child[2] else parent[2]
                end_y = child[2] if parent[2] < child[2] else child[2] + BAR
                words = "carried context: " + " and ".join(kinds)
                arrows.append(f'<path d="M{start_x:.1f},{start_y} C{start_x:.1f},{(start_y + end_y) / 2} '
                              f'{child[0]:.1f},{(start_y + end_y) / 2} {child[0]:.1f},{end_y - 1}" fill="none" '
                              f'stroke="#333" stroke-dasharray="4 3" marker-end="url(#arrow)"/>')
                # Beside the arrow's end, or before it when the words would run off the picture.
                label_x, anchor = max(start_x, child[0]) + 8, "start"
                if label_x + len(words) * CHAR > width - RIGHT:
                    label_x, anchor = child[0] - 8, "end"
                arrows.append(f'<text x="{label_x:.1f}" y="{(start_y + end_y) / 2 + 4}" text-anchor="{anchor}" '
                              f'fill="#333">{words}</text>')
    out.extend(arrows)

    # The time axis, from the first span's start.
    axis = y - LANE_GAP + 20
    step = nice_step(t1 - t0)
    out.append(f'<line x1="{LEFT}" y1="{axis}" x2="{width - RIGHT}" y2="{axis}" stroke="#999"/>')
    tick = 0
    while t0 + tick <= t1:
        tx = x(t0 + tick)
        out.append(f'<line x1="{tx:.1f}" y1="{axis}" x2="{tx:.1f}" y2="{axis + 4}" stroke="#999"/>')
        out.append(f'<text x="{tx:.1f}" y="{axis + 17}" text-anchor="middle" fill="#444">{tick_label(tick)}</text>')
        tick += step
    out.append(f'<text x="{width - RIGHT}" y="{axis + 34}" text-anchor="end" fill="#444">'
               "time since the first span started</text>")
    height = axis + 42

    print(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
          f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">')
    print('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
          'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>')
    print(f'<rect width="{width}" height="{height}" fill="white"/>')
    for line in out:
        print(line)
    print("</svg>")


if __name__ == "__main__":
    main(sys.argv[1:])
