import CacheStoreTesting
import Foundation
import Testing

/// The same random effect programs (EffectProgram.swift) run on a plain `Store`, whose effects run on
/// the concurrency pool, stepped by a `TestClock` one wake at a time, and on a `TestStore`, whose
/// effects run on the executor it drives: the two must handle the same actions in the same order.
///
/// The order is the handler's: each side's handler logs every action it sees (sent, immediate,
/// from an effect). The test store side runs twice: with the app side's steps (each advance to the
/// next deadline, each send), and with one advance to each start's time then `clock.run()`. Its
/// list of received actions must be that order too, less the actions sent.
///
/// A failure names the seed, the program, both orders and the first index that differs; replay one
/// seed with `CACHESTORE_DIFF_SEED=<seed> swift test --filter DifferentialTests`. `swift test` runs
/// ``Soak/differentialPrograms`` seeds from 1; `CACHESTORE_SOAK=1` runs thousands.
@Suite(.timeLimit(.minutes(Soak.isFull ? 30 : 5)))
struct DifferentialTests {
    /// How long the app side may take to come to rest after one step: far beyond what it needs (well
    /// under a millisecond), for a loaded machine or a sanitizer.
    static let restTimeout = Duration.seconds(20)

    /// The seeds to run: `CACHESTORE_DIFF_SEED`'s alone, when set.
    static var seeds: [UInt64] {
        if let seed = ProcessInfo.processInfo.environment["CACHESTORE_DIFF_SEED"].flatMap(UInt64.init) {
            return [seed]
        }
        return Array(1...UInt64(Soak.differentialPrograms))
    }

    @Test func everyProgramHandlesTheSameActionsInTheSameOrderOnAStoreAndATestStore() async {
        var failures = 0
        for seed in Self.seeds {
            let program = EffectProgram(seed: seed)
            let messages = await Self.differences(in: program)
            for message in messages { Issue.record(Comment(rawValue: message)) }
            failures += messages.isEmpty ? 0 : 1
            // A few programs' reports say it all; the rest would bury them.
            if failures == 5 {
                Issue.record("Stopped after 5 failing programs, at seed \(seed).")
                return
            }
        }
    }

    /// The comparison itself rejects two orders that differ by one swapped pair, naming the index.
    @Test func aSwappedPairIsRejectedAtTheFirstIndexThatDiffers() async throws {
        // The first program whose order has two different actions side by side after the start.
        var found: (EffectProgram, AppRun, Int)?
        for seed in UInt64(1)...100 {
            let program = EffectProgram(seed: seed)
            let app = try await AppRun.run(program, timeout: Self.restTimeout)
            if let index = app.order.indices.dropFirst().dropLast().first(where: { app.order[$0] != app.order[$0 + 1] })
            {
                found = (program, app, index)
                break
            }
        }
        let (program, app, index) = try #require(found)
        var swapped = app.order
        swapped.swapAt(index, index + 1)
        let messages = Self.compare(
            program, app, TestStoreRun(order: swapped, received: swapped.filter(\.isReceived)), .sameSteps,
            failures: [])

        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message.contains("Seed \(program.seed): the orders of handled actions differ at index \(index):"))
        #expect(message.contains("the store handled \(app.order[index]), the test store \(app.order[index + 1])"))
        #expect(message.contains("CACHESTORE_DIFF_SEED=\(program.seed) swift test --filter DifferentialTests"))
        #expect(message.contains(program.description.split(separator: "\n")[0]))

        // And one order a prefix of the other: the index is where the shorter one ends.
        #expect(
            OrderDifference(expected: app.order, actual: Array(app.order.dropLast()))
                == OrderDifference(index: app.order.count - 1, expected: app.order.last, actual: nil))
        #expect(OrderDifference(expected: app.order, actual: app.order) == nil)
    }

    /// A real difference is caught end to end: the test store runs the program with two of its
    /// durations swapped, which changes the order the store handles.
    @Test func aProgramThatDiffersOnOneSideIsRejected() async throws {
        var found: (EffectProgram, EffectProgram, AppRun, AppRun)?
        search: for seed in UInt64(1)...100 {
            let program = EffectProgram(seed: seed)
            guard program.durations.count >= 2 else { continue }
            let app = try await AppRun.run(program, timeout: Self.restTimeout)
            for other in 1..<program.durations.count {
                let perturbed = program.swappingDurations(0, other)
                let perturbedApp = try await AppRun.run(perturbed, timeout: Self.restTimeout)
                if perturbedApp.order != app.order {
                    found = (program, perturbed, app, perturbedApp)
                    break search
                }
            }
        }
        let (program, perturbed, app, perturbedApp) = try #require(found)
        for mode in TestStoreMode.allCases {
            let perturbedRun = await TestStoreRun.run(perturbed, mode, schedule: perturbedApp.schedule)
            #expect(perturbedRun.order == perturbedApp.order, "the perturbed program agrees with itself")
            let messages = Self.compare(program, app, perturbedRun, mode, failures: [])
            let difference = try #require(OrderDifference(expected: app.order, actual: perturbedRun.order))
            #expect(messages.count == 1)
            #expect(messages.first?.contains("differ at index \(difference.index):") == true)
        }
    }

    @Test func aSeedMakesOneProgram() {
        for seed in UInt64(1)...50 {
            #expect(EffectProgram(seed: seed).description == EffectProgram(seed: seed).description)
        }
        #expect(EffectProgram(seed: 1).description != EffectProgram(seed: 2).description)
    }

    // MARK: - The comparison

    /// Runs `program` on both sides, and returns a message for each disagreement (none when they
    /// agree).
    static func differences(in program: EffectProgram) async -> [String] {
        let app: AppRun
        do {
            app = try await AppRun.run(program, timeout: restTimeout)
        } catch {
            return ["Seed \(program.seed): \(error)\nProgram:\n\(program)"]
        }
        var messages: [String] = []
        for mode in TestStoreMode.allCases {
            var run = TestStoreRun()
            let failures = await captureFailures { run = await TestStoreRun.run(program, mode, schedule: app.schedule) }
            messages += compare(program, app, run, mode, failures: failures.map(\.message))
        }
        guard !messages.isEmpty else { return [] }
        // Is the app side's order its only one? Run it again, to tell a disagreement from a harness
        // that let the app side race.
        var again: [String] = []
        for _ in 1...3 {
            let order = (try? await AppRun.run(program, timeout: restTimeout))?.order
            again.append(order == app.order ? "same" : order.map { "\($0)" } ?? "no rest")
        }
        return messages.map { $0 + "\nThe app side run 3 more times: \(again.joined(separator: "; "))." }
    }

    /// The disagreements between the app side's run and the test store's, as messages.
    static func compare(
        _ program: EffectProgram, _ app: AppRun, _ run: TestStoreRun, _ mode: TestStoreMode, failures: [String]
    ) -> [String] {
        var messages: [String] = []
        if let difference = OrderDifference(expected: app.order, actual: run.order) {
            messages.append(
                difference.message(
                    seed: program.seed, program: program, mode: mode, schedule: app.schedule,
                    expectedName: "the store", actualName: "the test store", expected: app.order, actual: run.order))
        } else if let difference = OrderDifference(expected: run.order.filter(\.isReceived), actual: run.received) {
            messages.append(
                difference.message(
                    seed: program.seed, program: program, mode: mode, schedule: app.schedule,
                    expectedName: "the test store's handler", actualName: "its received actions",
                    expected: run.order.filter(\.isReceived), actual: run.received))
        }
        messages += failures.map { "Seed \(program.seed) (test store clock: \(mode)): the test store reported: \($0)" }
        return messages
    }
}

extension ProgramAction {
    /// Whether a test store receives it: every action but those the test sends.
    var isReceived: Bool {
        if case .start = self { false } else { true }
    }
}
