import Foundation

/// One measured row: a case at a size, with its ratio to the baseline measured in the same run.
struct Row {
    var name: String
    var size: Int
    /// Nanoseconds per operation, or bytes per key for the memory case.
    var value: Double
    var ratio: Double
    /// The case the ratio divides by (its floor), if any.
    var baseline: String? = nil
    /// The case's figure in each round of timing (empty for rows not timed in rounds): ratios
    /// between rows pair them round by round (``Measurement/pairedRatio(_:to:)``).
    var rounds: [Double] = []
}

/// Prints rows as an aligned table, or as tab-separated values for scripts.
enum ResultTable {
    static func render(_ rows: [Row], tabSeparated: Bool) -> String {
        if tabSeparated {
            let lines = rows.map { row in
                "\(row.name)\t\(row.size)\t\(String(format: "%.1f", row.value))\t\(String(format: "%.2f", row.ratio))"
            }
            return (["case\tsize\tns_per_op\tratio"] + lines).joined(separator: "\n")
        }
        let header = ["case", "size", "ns/op", "ratio", "against"]
        let cells = rows.map { row in
            [
                row.name, row.size.formatted(), String(format: "%.1f", row.value), String(format: "%.2f×", row.ratio),
                row.baseline ?? "",
            ]
        }
        let widths = (0..<header.count).map { column in
            ([header] + cells).map { $0[column].count }.max() ?? 0
        }
        func line(_ values: [String]) -> String {
            values.enumerated().map { column, value in
                column == 0 || column == header.count - 1
                    ? value.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - value.count) + value
            }
            .joined(separator: "  ")
            .replacing(/\ +$/, with: "")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + cells.map(line)).joined(separator: "\n")
    }
}
