import Foundation

/// The performance targets, checked against the rows of one run.
struct Targets {
    let rows: [Row]

    private func row(_ name: String, _ size: Int) -> Row? {
        rows.first { $0.name == name && $0.size == size }
    }

    /// Case `name` at `size` over `baseline` at `baselineSize` (default: `size`), paired round by
    /// round when both were timed in the same rounds.
    private func ratio(_ name: String, _ size: Int, to baseline: String, _ baselineSize: Int? = nil) -> Double? {
        guard let value = row(name, size), let base = row(baseline, baselineSize ?? size) else { return nil }
        guard !value.rounds.isEmpty, value.rounds.count == base.rounds.count else { return value.value / base.value }
        return Measurement.pairedRatio(value.rounds, to: base.rounds)
    }

    /// One line per target: whether it holds, and the figures it was judged on.
    func report() -> [String] {
        var lines: [String] = []
        func check(_ title: String, _ figures: [(label: String, value: Double?)], limit: Double, unit: String = "×") {
            let known = figures.compactMap { figure in figure.value.map { (figure.label, $0) } }
            guard !known.isEmpty else { return lines.append("  ? \(title): not measured here") }
            let holds = known.allSatisfy { $0.1 <= limit }
            let text = known.map { label, value in
                String(format: "%.2f", value) + unit + (label.isEmpty ? "" : " (\(label))")
            }
            lines.append("  \(holds ? "✓" : "✗") \(title): " + text.joined(separator: ", "))
        }
        let sizes = [10, 1_000, 100_000]
        check(
            "store-handle ≤ 5× floor-write",
            sizes.map { ($0.formatted(), ratio("store-handle", $0, to: "floor-write")) }, limit: 5)
        check(
            "store-handle at 100,000 keys ≤ 1.5× at 10",
            [("", ratio("store-handle", 100_000, to: "store-handle", 10))], limit: 1.5)
        check(
            "cache-get ≤ 2× floor-read", sizes.map { ($0.formatted(), ratio("cache-get", $0, to: "floor-read")) },
            limit: 2)
        check(
            "typed-get ≤ 1.05× cache-get", sizes.map { ($0.formatted(), ratio("typed-get", $0, to: "cache-get")) },
            limit: 1.05)
        check(
            "typed-handle ≤ 1.05× store-handle",
            sizes.map { ($0.formatted(), ratio("typed-handle", $0, to: "store-handle")) }, limit: 1.05)
        check(
            "persisted-set ≤ 1.2× store-handle (the save is off the path)",
            [10, 1_000].map { ($0.formatted(), ratio("persisted-set", $0, to: "store-handle")) }, limit: 1.2)
        check(
            "persisted-restore ≤ 1.5× floor-restore (1,000 keys, 10 MB)",
            [("", ratio("persisted-restore", 1_000, to: "floor-restore"))], limit: 1.5)
        check(
            "journal-handle ≤ 1.5× floor-journal-append",
            [1_000, 100_000].map { ($0.formatted(), ratio("journal-handle", $0, to: "floor-journal-append", 10)) },
            limit: 1.5)
        check(
            "journal-handle at 100,000 recorded actions within ±20% of at 1,000",
            [("", ratio("journal-handle", 100_000, to: "journal-handle", 1_000).map { abs($0 - 1) + 1 })],
            limit: 1.2)
        check(
            "journal-jump in a 100,000-action journal ≤ 50 ms",
            [("", row("journal-jump", 100_000).map { $0.value / 1_000_000 })], limit: 50, unit: " ms")
        check(
            "scoped-handle ≤ 1.5× store-handle",
            [1_000, 100_000].map { ($0.formatted(), ratio("scoped-handle", $0, to: "store-handle")) }, limit: 1.5)
        // The paths of a UI, each against its true floor (see FloorCases).
        check(
            "store-handle-observed-same ≤ 1.2× floor-observed-write",
            sizes.map { ($0.formatted(), ratio("store-handle-observed-same", $0, to: "floor-observed-write")) },
            limit: 1.2)
        check(
            "store-handle-observed-equal ≤ 1× floor-observed-write (an equal write tells no one)",
            sizes.map { ($0.formatted(), ratio("store-handle-observed-equal", $0, to: "floor-observed-write")) },
            limit: 1)
        check(
            "effect-roundtrip ≤ 2× floor-task-roundtrip",
            [("", ratio("effect-roundtrip", 10, to: "floor-task-roundtrip"))], limit: 2)
        check(
            "scope-create ≤ 1.5× floor-scope-create",
            sizes.map { ($0.formatted(), ratio("scope-create", $0, to: "floor-scope-create")) }, limit: 1.5)
        check(
            "row-write ≤ 1.5× floor-row-write",
            sizes.map { ($0.formatted(), ratio("row-write", $0, to: "floor-row-write")) }, limit: 1.5)
        // The floor's own growth is printed beside it: where the rows do not fit the CPU's caches, the
        // floor's writes slow down too (1.5-1.7x on the 2-core machine of the README's run).
        let floorGrowth = ratio("floor-row-write", 100_000, to: "floor-row-write", 10)
        let floorGrowthLabel = floorGrowth.map { String(format: "floor-row-write's own: %.2f×", $0) } ?? ""
        check(
            "row-write at 100,000 rows ≤ 1.2× at 10",
            [(floorGrowthLabel, ratio("row-write", 100_000, to: "row-write", 10))], limit: 1.2)
        check(
            "lifted-handle ≤ 1.5× store-handle",
            [1_000, 100_000].map { ($0.formatted(), ratio("lifted-handle", $0, to: "store-handle")) }, limit: 1.5)
        check(
            "teststore-send ≤ 3× store-handle",
            [10, 1_000, 10_000].map { ($0.formatted(), ratio("teststore-send", $0, to: "store-handle")) }, limit: 3)
        check(
            "teststore-send at 10,000 keys ≤ 20 µs", [("", row("teststore-send", 10_000).map { $0.value / 1_000 })],
            limit: 20, unit: " µs")
        for (size, limit) in [(4_000, 20.0), (100_000, 500.0)] {
            check(
                "teststore-send-dictionary of \(size.formatted()) non-Equatable structs ≤ \(Int(limit)) ms",
                [("", row("teststore-send-dictionary", size).map { $0.value / 1_000_000 })], limit: limit, unit: " ms")
        }
        check("memory ≤ 1.5× a raw dictionary", [("", ratio("memory", 100_000, to: "memory-floor"))], limit: 1.5)
        return lines
    }
}
