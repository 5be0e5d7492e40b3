/// How long one operation takes: the median over several timed repetitions, after a warm-up.
struct Measurement {
    /// Repetitions timed (the median is reported) and operations per repetition.
    struct Plan {
        var repetitions: Int
        var operations: Int

        static let full = Plan(repetitions: 7, operations: 200_000)
        static let quick = Plan(repetitions: 5, operations: 2_000)

        /// This plan with `operations` scaled by `factor` (for slow cases), at least 1.
        func scaled(by factor: Double) -> Plan {
            Plan(repetitions: repetitions, operations: max(1, Int(Double(operations) * factor)))
        }
    }

    /// Nanoseconds per operation.
    let nanosecondsPerOperation: Double

    /// Times `operation` run `plan.operations` times per repetition. `operation` gets the index of the
    /// run, so that cases can vary keys; set-up belongs outside it.
    static func time(_ plan: Plan, _ operation: (Int) -> Void) -> Measurement {
        for index in 0..<min(plan.operations, 10_000) { operation(index) }  // warm-up
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<plan.repetitions {
            let elapsed = clock.measure {
                for index in 0..<plan.operations { operation(index) }
            }
            samples.append(elapsed.nanoseconds / Double(plan.operations))
        }
        return Measurement(nanosecondsPerOperation: samples.sorted()[samples.count / 2])
    }

    /// Times a batch operation that does `count` operations itself: for cases whose set-up must be
    /// repeated per batch (effects started and cancelled, for example).
    static func timeBatches(_ plan: Plan, count: Int, _ batch: () -> Void) -> Measurement {
        batch()  // warm-up
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<plan.repetitions {
            samples.append(clock.measure(batch).nanoseconds / Double(count))
        }
        return Measurement(nanosecondsPerOperation: samples.sorted()[samples.count / 2])
    }
}

extension Duration {
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}
