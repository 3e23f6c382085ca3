#if Postgres && Observability
import Foundation

/// The scale curve as an SVG chart, drawn the way `Benchmarks/Scripts/chart.py` draws the local comparison's
/// (`docs/performance-curve.svg`): log axes with a line at each decade and lighter ones between, a point with a
/// tooltip for each figure, and the legend under the plots, one series a row. Two plots share the x axis, the number
/// of receiving processes: mail per second above, p50 latency below.
struct ScaleChart {
    struct Series {
        var label: String
        var color: String
        /// An SVG dash pattern, empty for a solid line.
        var dash: String
        /// One figure per number of processes; NaN where a run failed.
        var throughput: [Double]
        var p50: [Double]
    }

    var title: String
    var processes: [Int]
    var series: [Series]

    private static let width = 760.0
    private static let left = 90.0
    private static let right = 30.0
    private static let top = 50.0
    private static let plotHeight = 250.0
    /// Between the two plots: the first one's x labels and the second one's title.
    private static let gap = 70.0
    private static let legendRow = 20.0

    func svg() -> String {
        let plotWidth = Self.width - Self.left - Self.right
        let plots: [(title: String, axis: String, figures: (Series) -> [Double], unit: String)] = [
            ("Throughput", "mail per second (log scale)", \.throughput, "mail/s"),
            ("Latency", "p50, milliseconds (log scale)", \.p50, "ms p50"),
        ]
        let xAxisBottom = Self.top + 2 * Self.plotHeight + Self.gap
        let legendTop = xAxisBottom + 72
        let height = legendTop + Self.legendRow * Double(series.count) + 10
        let xs = processes.map(Double.init)
        let (xFirst, xLast) = (log2(xs.min() ?? 1), max(log2(xs.max() ?? 2), log2(xs.min() ?? 1) + 1))
        func px(_ x: Double) -> Double {
            Self.left + (log2(x) - xFirst) / (xLast - xFirst) * plotWidth
        }
        var out = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(Self.width))\" height=\"\(n(height))\" "
                + "viewBox=\"0 0 \(n(Self.width)) \(n(height))\" font-family=\"Helvetica, Arial, sans-serif\" "
                + "font-size=\"12\">",
            "<rect width=\"\(n(Self.width))\" height=\"\(n(height))\" fill=\"white\"/>",
            "<text x=\"\(n(Self.width / 2))\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">"
                + "\(escaped(title))</text>",
        ]
        for (index, plot) in plots.enumerated() {
            let top = Self.top + Double(index) * (Self.plotHeight + Self.gap)
            let bottom = top + Self.plotHeight
            let figures = series.flatMap(plot.figures).filter { $0 > 0 && $0.isFinite }
            let (first, last) = decades(figures.min() ?? 1, figures.max() ?? 10)
            func py(_ y: Double) -> Double {
                bottom - (log10(y) - Double(first)) / Double(last - first) * Self.plotHeight
            }
            out.append(
                "<text x=\"\(n(Self.left))\" y=\"\(n(top - 8))\" font-weight=\"bold\">\(escaped(plot.title))</text>")
            for x in xs {
                out.append(line(px(x), top, px(x), bottom, "#ddd"))
                out.append(
                    "<text x=\"\(n(px(x)))\" y=\"\(n(bottom + 18))\" text-anchor=\"middle\">\(Int(x))</text>")
            }
            for exponent in first...last {
                let y = py(pow(10, Double(exponent)))
                out.append(line(Self.left, y, Self.left + plotWidth, y, "#ddd"))
                out.append(
                    "<text x=\"\(n(Self.left - 8))\" y=\"\(n(y + 4))\" text-anchor=\"end\">"
                        + "\(tickLabel(exponent))</text>")
                guard exponent < last else { continue }
                for minor in 2...9 {
                    let y = py(Double(minor) * pow(10, Double(exponent)))
                    out.append(line(Self.left, y, Self.left + plotWidth, y, "#f2f2f2"))
                }
            }
            out.append(
                "<rect x=\"\(n(Self.left))\" y=\"\(n(top))\" width=\"\(n(plotWidth))\" height=\"\(n(Self.plotHeight))\" "
                    + "fill=\"none\" stroke=\"#333\"/>")
            out.append(
                "<text transform=\"translate(22 \(n(top + Self.plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">"
                    + "\(escaped(plot.axis))</text>")
            for entry in series {
                let points = zip(xs, plot.figures(entry)).filter { $0.1 > 0 && $0.1.isFinite }
                let dash = entry.dash.isEmpty ? "" : " stroke-dasharray=\"\(entry.dash)\""
                out.append(
                    "<polyline points=\"\(points.map { "\(n(px($0.0))),\(n(py($0.1)))" }.joined(separator: " "))\" "
                        + "fill=\"none\" stroke=\"\(entry.color)\" stroke-width=\"2\"\(dash)/>")
                for (x, y) in points {
                    out.append(
                        "<circle cx=\"\(n(px(x)))\" cy=\"\(n(py(y)))\" r=\"3.5\" fill=\"\(entry.color)\">"
                            + "<title>\(escaped(entry.label)): \(String(format: "%g", y)) \(plot.unit) with "
                            + "\(Int(x)) processes</title></circle>")
                }
            }
        }
        out.append(
            "<text x=\"\(n(Self.left + plotWidth / 2))\" y=\"\(n(xAxisBottom + 48))\" text-anchor=\"middle\">"
                + "receiving processes (log scale)</text>")
        for (index, entry) in series.enumerated() {
            let y = legendTop + Self.legendRow * Double(index)
            let dash = entry.dash.isEmpty ? "" : " stroke-dasharray=\"\(entry.dash)\""
            out.append(
                "<line x1=\"\(n(Self.left))\" y1=\"\(n(y))\" x2=\"\(n(Self.left + 30))\" y2=\"\(n(y))\" "
                    + "stroke=\"\(entry.color)\" stroke-width=\"2\"\(dash)/>")
            out.append("<text x=\"\(n(Self.left + 38))\" y=\"\(n(y + 4))\">\(escaped(entry.label))</text>")
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// The powers of ten around `low...high`, at least one decade apart.
    private func decades(_ low: Double, _ high: Double) -> (first: Int, last: Int) {
        let first = Int(log10(low).rounded(.down))
        let last = Int(log10(high).rounded(.up))
        return (first, max(last, first + 1))
    }

    private func tickLabel(_ exponent: Int) -> String {
        let value = pow(10, Double(exponent))
        if exponent >= 6 { return String(format: "%g M", value / 1e6) }
        if exponent >= 3 { return String(format: "%g k", value / 1e3) }
        return String(format: "%g", value)
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ color: String) -> String {
        "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(color)\"/>"
    }

    private func n(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    private func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
#endif
