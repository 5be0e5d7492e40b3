/// A benchmark case ready to run: its set-up done, its operations timed by ``Measurement``.
struct BenchmarkCase {
    var name: String
    var size: Int
    /// The case whose ns/op this one's is divided by, at the same size.
    var baseline: String?
    /// How many operations one run performs.
    var operations: Int
    /// Performs `operations` operations.
    var run: () -> Void

    /// A case of `operations` calls of `operation`, each given its index (cases vary keys by it).
    init(
        _ name: String, size: Int, baseline: String? = "floor-write", operations: Int,
        _ operation: @escaping (Int) -> Void
    ) {
        self.name = name
        self.size = size
        self.baseline = baseline
        self.operations = operations
        self.run = { for index in 0..<operations { operation(index) } }
    }

    /// A case whose `batch` performs `operations` operations itself.
    init(_ name: String, size: Int, baseline: String? = "floor-write", operations: Int, batch: @escaping () -> Void) {
        self.name = name
        self.size = size
        self.baseline = baseline
        self.operations = operations
        self.run = batch
    }
}

/// Times cases round-robin: each round runs every case once, so a slow spell of this shared
/// machine hits the cases and their baselines alike; a case's figure is the median over the rounds,
/// and its ratio to another case the median of the two cases' ratios in each round.
enum Measurement {
    /// Rounds of timing and operations per case per round.
    struct Plan {
        var rounds: Int
        var operations: Int

        static let full = Plan(rounds: 7, operations: 200_000)
        static let quick = Plan(rounds: 5, operations: 2_000)

        /// `operations` scaled by `factor` for slow cases, at least 1.
        func operations(scaledBy factor: Double) -> Int {
            max(1, Int(Double(operations) * factor))
        }
    }

    /// Nanoseconds per operation of each case in each round (`[case][round]`), in the order given,
    /// after one warm-up run of each.
    static func interleaved(_ cases: [BenchmarkCase], rounds: Int) -> [[Double]] {
        for benchmark in cases { benchmark.run() }
        let clock = ContinuousClock()
        var samples = Array(repeating: [Double](), count: cases.count)
        for _ in 0..<rounds {
            for (index, benchmark) in cases.enumerated() {
                samples[index].append(clock.measure(benchmark.run).nanoseconds / Double(benchmark.operations))
            }
        }
        return samples
    }

    /// The middle value of `values` (the upper of the two middle ones when their count is even).
    static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }

    /// How many times `samples` is `baseline`, paired round by round: the median of the rounds'
    /// ratios. A slow spell of the machine that hits one round hits both figures of its ratio, where
    /// a ratio of the two medians can take its numerator and denominator from different rounds.
    static func pairedRatio(_ samples: [Double], to baseline: [Double]) -> Double {
        precondition(samples.count == baseline.count && !samples.isEmpty, "figures of different rounds")
        return median(zip(samples, baseline).map { $0 / $1 })
    }
}

extension Duration {
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}
