// `swift run -c release typed-defaults-bench --reads [--svg PATH]`
//
// What one read of an `Int` costs, in instructions (callgrind, counted as the gate counts them), by the
// way it is read: Foundation's `object(forKey:)`, a typed read through a store that asks the suite
// each time, the reads a store keeps between changes (`InMemoryStorage`, and a suite with the app's
// promise `writers: .onlyTypedDefaults`), and a read inside `withObservationTracking`. Each bar is
// split in two where the read calls Foundation's: Foundation's own read (the plain row of the same
// run) and what the library adds to it. Prints the table Performance.md shows and, with `--svg`,
// draws it from the same run.

import Foundation

/// One read of the table: its label, its count, and the part of it that is Foundation's own read.
private struct ReadRow {
    let label: String
    let instructions: Double
    let foundation: Double
}

/// Measures the reads; prints them, and draws them into `svgPath` when given.
func runReads(svgPath: String?) {
    guard let count = InstructionCounter() else {
        print("reads: valgrind is not installed here, or this system cannot start a process")
        return
    }
    let operations = 4_000
    let plain = count("read", "plain", operations: operations, keys: 1)
    let typed = count("read", "library", operations: operations, keys: 1)
    let rows = [
        ReadRow(label: "Foundation's object(forKey:)", instructions: plain, foundation: plain),
        ReadRow(label: "typed read, asks the suite", instructions: typed, foundation: plain),
        ReadRow(
            label: "typed read, kept (InMemoryStorage)",
            instructions: count("read-memory", "library", operations: operations, keys: 1), foundation: 0),
        ReadRow(
            label: "typed read, kept (promised suite)",
            instructions: count("read-promised", "library", operations: operations, keys: 1), foundation: 0),
        ReadRow(
            label: "typed read in withObservationTracking",
            instructions: count("tracked", "library", operations: operations, keys: 1), foundation: plain),
    ]
    print("instructions per read of an Int (callgrind; \(grouped(operations)) reads; calling thread only)")
    print(
        "read".padding(toLength: 40, withPad: " ", startingAt: 0), "total", "Foundation", "library", "of plain",
        separator: "\t")
    for row in rows {
        print(
            row.label.padding(toLength: 40, withPad: " ", startingAt: 0), String(format: "%.0f", row.instructions),
            String(format: "%.0f", row.foundation), String(format: "%.0f", row.instructions - row.foundation),
            String(format: "%.3f", row.instructions / plain), separator: "\t")
    }
    guard let svgPath else { return }
    do {
        try readsPlot(rows).write(toFile: svgPath, atomically: true, encoding: .utf8)
        print("drawn into \(svgPath)")
    } catch {
        print("reads: could not write \(svgPath): \(error)")
    }
}

/// The rows as horizontal bars on one linear scale: Foundation's part gray, the library's blue.
private func readsPlot(_ rows: [ReadRow]) -> String {
    let (width, left, right, top, barHeight, gap) = (760.0, 270.0, 90.0, 50.0, 26.0, 14.0)
    let height = top + Double(rows.count) * (barHeight + gap) + 40
    let plotWidth = width - left - right
    let highest = (rows.map(\.instructions).max() ?? 1) * 1.05
    // Coordinates to a tenth of a point: the file stays readable and the same run draws the same file.
    func x(_ value: Double) -> String { String(format: "%.1f", left + plotWidth * value / highest) }
    func barWidth(_ value: Double) -> String { String(format: "%.1f", plotWidth * value / highest) }
    var lines = svgHeader(
        width: width, height: height, title: "Instructions per read of an Int (callgrind, one run)", titleX: 20)
    lines += [
        ##"<rect x="20" y="30" width="12" height="12" fill="#bbbbbb"/><text x="38" y="40">Foundation's read</text>"##,
        ##"<rect x="170" y="30" width="12" height="12" fill="#1f77b4"/><text x="188" y="40">the library's share</text>"##,
    ]
    for (index, row) in rows.enumerated() {
        let y = top + Double(index) * (barHeight + gap)
        let textY = String(format: "%.1f", y + barHeight / 2 + 4)
        lines.append(#"<text x="\#(left - 8)" y="\#(textY)" text-anchor="end">\#(row.label)</text>"#)
        if row.foundation > 0 {
            lines.append(
                ##"<rect x="\##(left)" y="\##(y)" width="\##(barWidth(row.foundation))" height="\##(barHeight)" fill="#bbbbbb"/>"##
            )
        }
        let share = max(row.instructions - row.foundation, 0)
        lines.append(
            ##"<rect x="\##(x(row.foundation))" y="\##(y)" width="\##(barWidth(share))" height="\##(barHeight)" fill="#1f77b4"/>"##
        )
        lines.append(
            #"<text x="\#(String(format: "%.1f", left + plotWidth * row.instructions / highest + 6))" y="\#(textY)">\#(grouped(Int(row.instructions.rounded())))</text>"#
        )
    }
    lines.append("</svg>")
    return lines.joined(separator: "\n") + "\n"
}
