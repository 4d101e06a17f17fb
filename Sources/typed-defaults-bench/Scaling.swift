// `swift run -c release typed-defaults-bench --scaling [--svg PATH]`
//
// How cost grows with the suite: instructions per operation (callgrind, as the gate counts them) for a
// read, a write, `hasKey` of a value equal to the key's default and a snapshot, in suites of 1, 1,000
// and 10,000 keys saved before the process starts, library and plain Foundation side by side; and a
// write after the process itself has set 1,000 names, which corelibs' list of set names makes cost
// more. Prints the table Performance.md shows and, with `--svg`, draws it.
import Foundation

/// One operation of the scaling table: its case name and the label of each side.
private struct ScalingOperation {
    let name: String
    let label: String
    let plainLabel: String
}

private let scalingOperations = [
    ScalingOperation(name: "read", label: "read", plainLabel: "object(forKey:)"),
    ScalingOperation(name: "write", label: "write", plainLabel: "set(_:forKey:)"),
    ScalingOperation(name: "haskey", label: "hasKey", plainLabel: "persistentDomain(forName:)?[name]"),
    ScalingOperation(name: "snapshot", label: "snapshot", plainLabel: "persistentDomain(forName:)"),
]

private let scalingSizes = [1, 1_000, 10_000]

/// Measures the table; prints it, and draws it into `svgPath` when given.
func runScaling(svgPath: String?) {
    guard let count = InstructionCounter() else {
        print("scaling: valgrind is not installed here, or this system cannot start a process")
        return
    }
    var figures: [String: [Int: (library: Double, plain: Double)]] = [:]
    for operation in scalingOperations {
        for keys in scalingSizes {
            // A copy of a big domain costs millions of instructions: fewer operations keep the run short.
            let operations = operation.name == "snapshot" ? 10 : 400
            let library = count(operation.name, "library", operations: operations, keys: keys, fill: .file)
            let plainOperations = operation.name == "haskey" || operation.name == "snapshot" ? 10 : operations
            let plain = count(operation.name, "plain", operations: plainOperations, keys: keys, fill: .file)
            figures[operation.name, default: [:]][keys] = (library, plain)
        }
    }
    let setHere = (
        library: count("write", "library", operations: 100, keys: 1_000, fill: .set),
        plain: count("write", "plain", operations: 100, keys: 1_000, fill: .set)
    )
    print("instructions per operation by suite size (callgrind; suites saved before the process starts)")
    print("operation", "keys", "library", "plain", "plain call", separator: "\t")
    for operation in scalingOperations {
        for keys in scalingSizes {
            guard let figure = figures[operation.name]?[keys] else { continue }
            print(
                operation.label, grouped(keys), grouped(Int(figure.library)), grouped(Int(figure.plain)),
                operation.plainLabel, separator: "\t")
        }
    }
    print(
        "write, after this process set 1,000 names", "1,000", grouped(Int(setHere.library)),
        grouped(Int(setHere.plain)), "set(_:forKey:)", separator: "\t")
    if let svgPath {
        let svg = scalingPlot(figures, setHere: setHere)
        do {
            try svg.write(toFile: svgPath, atomically: true, encoding: .utf8)
            print("drawn into \(svgPath)")
        } catch {
            print("scaling: could not write \(svgPath): \(error)")
        }
    }
}

/// The table as a line chart: instructions per operation (log scale) against the suite's size, the
/// library solid and plain Foundation dashed, one color per operation.
private func scalingPlot(
    _ figures: [String: [Int: (library: Double, plain: Double)]], setHere: (library: Double, plain: Double)
) -> String {
    let width = 720.0
    let height = 420.0
    let left = 90.0
    let right = 250.0
    let top = 30.0
    let bottom = 50.0
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    let lowest = 4.0  // 10^4
    let highest = 9.0  // 10^9
    // Coordinates to a tenth of a point: the file stays readable and the same run draws the same file.
    func x(_ index: Int) -> String {
        String(format: "%.1f", left + plotWidth * Double(index) / Double(scalingSizes.count - 1))
    }
    func y(_ value: Double) -> String {
        let exponent = min(max(log10(max(value, 1)), lowest), highest)
        return String(format: "%.1f", top + plotHeight * (highest - exponent) / (highest - lowest))
    }
    var lines = svgHeader(
        width: width, height: height, title: "Instructions per operation by suite size (log scale)", titleX: left)
    for exponent in Int(lowest)...Int(highest) {
        let level = y(pow(10, Double(exponent)))
        let labelY = String(format: "%.1f", (Double(level) ?? 0) + 4)
        lines.append(
            ##"<line x1="\##(left)" y1="\##(level)" x2="\##(left + plotWidth)" y2="\##(level)" stroke="#ddd"/>"##)
        lines.append(#"<text x="\#(left - 8)" y="\#(labelY)" text-anchor="end">10^\#(exponent)</text>"#)
    }
    for (index, keys) in scalingSizes.enumerated() {
        lines.append(
            #"<text x="\#(x(index))" y="\#(top + plotHeight + 20)" text-anchor="middle">\#(grouped(keys)) \#(keys == 1 ? "key" : "keys")</text>"#
        )
    }
    lines += scalingLines(figures, x: x, y: y, legendX: width - right + 20, top: top)
    let marker = Double(y(setHere.library)) ?? 0
    let markerX = Double(x(1)) ?? 0
    lines.append(##"<circle cx="\##(markerX)" cy="\##(marker)" r="5" fill="none" stroke="#d62728" stroke-width="2"/>"##)
    lines.append(
        #"<text x="\#(markerX + 10)" y="\#(marker - 8)">write after this process set 1,000 names</text>"#)
    lines.append("</svg>")
    return lines.joined(separator: "\n") + "\n"
}

/// An SVG document's opening lines: its size, a white ground and its title (`--scaling`, `--reads`).
func svgHeader(width: Double, height: Double, title: String, titleX: Double) -> [String] {
    [
        #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(width))" height="\#(Int(height))" "#
            + #"font-family="-apple-system, Helvetica, Arial, sans-serif" font-size="12">"#,
        #"<rect width="100%" height="100%" fill="white"/>"#,
        #"<text x="\#(Int(titleX))" y="18" font-size="14">\#(title)</text>"#,
    ]
}

/// Each operation's two lines (library solid, plain dashed) and its legend.
private func scalingLines(
    _ figures: [String: [Int: (library: Double, plain: Double)]], x: (Int) -> String, y: (Double) -> String,
    legendX: Double, top: Double
) -> [String] {
    let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    var lines: [String] = []
    for (number, operation) in scalingOperations.enumerated() {
        let color = colors[number % colors.count]
        for (side, dash) in [("library", ""), ("plain", #" stroke-dasharray="6 4""#)] {
            let points = scalingSizes.enumerated().compactMap { index, keys -> String? in
                guard let figure = figures[operation.name]?[keys] else { return nil }
                return "\(x(index)),\(y(side == "library" ? figure.library : figure.plain))"
            }
            lines.append(
                #"<polyline points="\#(points.joined(separator: " "))" fill="none" stroke="\#(color)" "#
                    + #"stroke-width="2"\#(dash)/>"#)
        }
        let legend = top + 20 + Double(number) * 36
        lines.append(
            #"<line x1="\#(legendX)" y1="\#(legend)" x2="\#(legendX + 30)" y2="\#(legend)" "#
                + #"stroke="\#(color)" stroke-width="2"/>"#)
        lines.append(#"<text x="\#(legendX + 36)" y="\#(legend + 4)">\#(operation.label)</text>"#)
        lines.append(
            #"<line x1="\#(legendX)" y1="\#(legend + 16)" x2="\#(legendX + 30)" y2="\#(legend + 16)" "#
                + #"stroke="\#(color)" stroke-width="2" stroke-dasharray="6 4"/>"#)
        lines.append(#"<text x="\#(legendX + 36)" y="\#(legend + 20)">plain \#(operation.label)</text>"#)
    }
    return lines
}
