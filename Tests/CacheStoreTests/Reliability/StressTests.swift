import CacheStore
import Foundation
import Observation
import Testing

extension CPUHeavySuites {
    /// Eight threads send mixed actions to one store — writes, scoped-store writes, effects
    /// started and cancelled, reads — while observers watch. Run under ThreadSanitizer in CI. ``Soak`` says
    /// how many actions (5,000 per thread by default, 50,000 with `CACHESTORE_SOAK=1`).
    @Suite(.timeLimit(.minutes(10))) struct StressTests {
        static let threads = 8
        static let actionsPerThread = Soak.stressActionsPerThread
        static let sharedKeys = 16

        @Test func mixedActionsFromEightThreadsMatchTheSequentialModel() async throws {
            let store = Store(initialValues: [:], actionHandler: stressHandler)
            let scoped = store.scope(
                keyTransformation: (
                    from: { key in if case .scopedCounter(let thread) = key { thread } else { nil } },
                    to: { thread in thread.map(StressKey.scopedCounter) }
                ),
                actionHandler: scopedStressHandler,
                dependencyTransformation: { $0 })
            let observations = ObservationCounter(store: store)
            let streamedBatches = Recorder<Void>()
            let streamed = Task {
                for await _ in store.changes { streamedBatches.append(()) }
            }
            let sent = LockedCounts()

            await offThePool { Self.sendMixedActions(to: store, scoped: scoped, recording: sent) }
            for thread in 0..<Self.threads { store.cancel(id: thread) }
            #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })

            for thread in 0..<Self.threads {
                #expect(store.get(.counter(thread), as: Int.self) ?? 0 == sent.increments[thread], "thread \(thread)")
                #expect(scoped.get(thread, as: Int.self) ?? 0 == sent.scopedIncrements[thread], "thread \(thread)")
            }
            for key in 0..<Self.sharedKeys {
                let last = store.get(.shared(key), as: LastWrite.self)
                #expect(last.map { sent.lastWrite(key: key, thread: $0.thread) == $0.sequence } ?? true, "key \(key)")
                #expect((last == nil) == sent.neverWritten(key: key), "key \(key)")
            }
            let handled = store.get(.handledActions, as: Int.self) ?? 0
            let delivered = store.get(.deliveredEffects, as: Int.self) ?? 0
            #expect(handled == sent.rootActions + delivered)
            #expect(observations.fired > 0)
            // The stream's consumer starts concurrently, possibly after a short run's actions are all
            // handled: one more action at a time until it reports a batch.
            #expect(
                await eventually {
                    store.handle(action: .increment(thread: 0))
                    return !streamedBatches.values.isEmpty
                })
            streamed.cancel()
        }

        /// Each of ``threads`` threads sends its share of the mixed actions, recording what it sent.
        static func sendMixedActions(
            to store: Store<StressKey, StressAction, Void>, scoped: Store<Int, Int, Void>, recording sent: LockedCounts
        ) {
            onThreads(threads) { thread in
                var random = SeededGenerator(seed: UInt64(thread + 1))
                for sequence in 0..<actionsPerThread {
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0...3:
                        store.handle(action: .increment(thread: thread))
                        sent.recordIncrement(thread)
                    case 4...5:
                        let key = Int.random(in: 0..<sharedKeys, using: &random)
                        store.handle(action: .write(key: key, thread: thread, sequence: sequence))
                        sent.recordWrite(key: key, thread: thread, sequence: sequence)
                    case 6:
                        scoped.handle(action: thread)
                        sent.recordScopedIncrement(thread)
                    case 7:
                        store.handle(action: .startEffect(id: thread))
                        sent.recordEffectStart()
                    case 8:
                        store.cancel(id: thread)
                    default:
                        _ = store.get(.counter(Int.random(in: 0..<threads, using: &random)), as: Int.self)
                        _ = scoped.get(thread, as: Int.self)
                    }
                }
            }
        }
    }
}

enum StressKey: Hashable, Sendable {
    case counter(Int)
    case scopedCounter(Int)
    case shared(Int)
    case handledActions
    case deliveredEffects
}

struct LastWrite: Equatable, Sendable {
    var thread: Int
    var sequence: Int
}

enum StressAction: Sendable {
    case increment(thread: Int)
    case write(key: Int, thread: Int, sequence: Int)
    case startEffect(id: Int)
    case effectDelivered
}

let stressHandler = StoreActionHandler<StressKey, StressAction, Void> { state, action, _ in
    state.update(.handledActions, as: Int.self) { $0 = ($0 ?? 0) + 1 }
    switch action {
    case .increment(let thread):
        state.update(.counter(thread), as: Int.self) { $0 = ($0 ?? 0) + 1 }
    case .write(let key, let thread, let sequence):
        state.set(value: LastWrite(thread: thread, sequence: sequence), forKey: .shared(key))
    case .startEffect(let id):
        return ActionEffect(id: id) {
            await Task.yield()
            return Task.isCancelled ? nil : .effectDelivered
        }
    case .effectDelivered:
        state.update(.deliveredEffects, as: Int.self) { $0 = ($0 ?? 0) + 1 }
    }
    return .none
}

/// The scoped store's keys are thread numbers; its action is "increment my thread's counter".
let scopedStressHandler = StoreActionHandler<Int, Int, Void> { state, thread, _ in
    state.update(thread, as: Int.self) { $0 = ($0 ?? 0) + 1 }
    return .none
}

/// What the threads sent: the sequential model the store's final state must match.
final class LockedCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var incrementCounts = Array(repeating: 0, count: CPUHeavySuites.StressTests.threads)
    private var scopedIncrementCounts = Array(repeating: 0, count: CPUHeavySuites.StressTests.threads)
    /// The last sequence number each thread wrote to each shared key.
    private var lastWrites: [Int: [Int: Int]] = [:]
    private var rootActionCount = 0

    /// Actions sent to the root store (the scoped store's are counted per thread).
    var rootActions: Int { lock.withLock { rootActionCount } }
    var increments: [Int] { lock.withLock { incrementCounts } }
    var scopedIncrements: [Int] { lock.withLock { scopedIncrementCounts } }

    func recordIncrement(_ thread: Int) {
        lock.withLock {
            incrementCounts[thread] += 1
            rootActionCount += 1
        }
    }

    func recordScopedIncrement(_ thread: Int) {
        lock.withLock {
            scopedIncrementCounts[thread] += 1
        }
    }

    func recordWrite(key: Int, thread: Int, sequence: Int) {
        lock.withLock {
            lastWrites[key, default: [:]][thread] = sequence
            rootActionCount += 1
        }
    }

    func recordEffectStart() {
        lock.withLock { rootActionCount += 1 }
    }

    func lastWrite(key: Int, thread: Int) -> Int? {
        lock.withLock { lastWrites[key]?[thread] }
    }

    func neverWritten(key: Int) -> Bool {
        lock.withLock { lastWrites[key] == nil }
    }
}

/// Keeps a `withObservationTracking` observation of a counter registered, counting how often it fires.
final class ObservationCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private weak var store: Store<StressKey, StressAction, Void>?

    var fired: Int { lock.withLock { count } }

    init(store: Store<StressKey, StressAction, Void>) {
        self.store = store
        observe()
    }

    private func observe() {
        guard let store else { return }
        withObservationTracking {
            _ = store.get(.counter(0), as: Int.self)
        } onChange: { [weak self] in
            guard let self else { return }
            lock.withLock { count += 1 }
            observe()
        }
    }
}
