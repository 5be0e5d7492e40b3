import CacheStore
import Foundation
import Testing

/// `concatenate`: a concatenation's next step is decided when its step ends, so a program of
/// composed effects handles its actions in one order on every run.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ConcatenationTests {
    enum Key: Hashable, Sendable { case unused }
    enum Action: Sendable, Equatable, CustomStringConvertible {
        case start
        case t(Int)

        var description: String {
            switch self {
            case .start: "start"
            case .t(let number): "t\(number)"
            }
        }
    }
    enum ID: Hashable, Sendable { case slow }

    /// Two programs whose concatenation's first step ends while a chain of immediate actions
    /// (from `t3`, each returning the next) is being handled; its second step is `t2`.
    enum Program: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `.start` returns `[t1, then t2]` merged with `t3`: the first step ends at once, as `t1` is
        /// handled, just before the chain.
        case stepEndsAtOnce
        /// `.start` returns `[a slow async effect, then t2]` merged with `t3`; `t5` cancels the slow
        /// effect, so the first step is cancelled in the middle of the chain.
        case stepCancelled

        var testDescription: String { rawValue }

        /// The last action of the chain.
        var chainEnd: Int {
            switch self {
            case .stepEndsAtOnce: 12
            case .stepCancelled: 20
            }
        }

        /// How many actions a run handles, `.start` included.
        var actionCount: Int {
            switch self {
            case .stepEndsAtOnce: chainEnd + 1
            case .stepCancelled: chainEnd
            }
        }

        /// A store running the program, whose chain's handlers each work for `linkTime`.
        func makeStore(_ handled: Recorder<String>, linkTime: Duration) -> Store<Key, Action, Void> {
            let program = self
            return Store(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, action, _ in
                    handled.append(action.description)
                    switch action {
                    case .start:
                        let firstStep: ActionEffect<Action> =
                            switch program {
                            case .stepEndsAtOnce:
                                ActionEffect(.t(1))
                            case .stepCancelled:
                                ActionEffect(id: ID.slow) {
                                    try? await Task.sleep(for: .seconds(30))
                                    return Task.isCancelled ? nil : .t(1)
                                }
                            }
                        return .merge(.concatenate(firstStep, ActionEffect(.t(2))), ActionEffect(.t(3)))
                    case .t(5) where program == .stepCancelled:
                        return .merge(.cancel(id: ID.slow), ActionEffect(.t(6)))
                    case .t(let number) where (3..<program.chainEnd).contains(number):
                        // Each link of the chain works for `linkTime`, as a handler takes time.
                        let end = ContinuousClock.now + linkTime
                        while ContinuousClock.now < end {}
                        return ActionEffect(.t(number + 1))
                    case .t:
                        return .none
                    }
                })
        }
    }

    /// How long each handler of the chain works in each run, in turn: the order of the handled
    /// actions must not depend on it.
    static let linkTimes: [Duration] = [0, 5, 20, 100, 300, 1_000, 3_000].map { .microseconds($0) }

    /// The program, run 50 times on new stores whose handlers take more or less time, handles its actions in one order.
    @Test(arguments: Program.allCases)
    func aProgramOfComposedEffectsHandlesItsActionsInOneOrder(_ program: Program) async throws {
        var orders: [String: Int] = [:]
        var unfinished = 0
        for run in 0..<50 {
            let handled = Recorder<String>()
            let store = program.makeStore(handled, linkTime: Self.linkTimes[run % Self.linkTimes.count])
            // Sent from a thread of its own, so that the handling holds no thread of the pool.
            let sent = await returnsOffThePool(within: .seconds(10)) { store.handle(action: .start) }
            if sent, await eventually(timeout: .seconds(10), { handled.values.count >= program.actionCount }) {
                orders[handled.values.joined(separator: " "), default: 0] += 1
            } else {
                unfinished += 1
            }
            withExtendedLifetime(store) {}
        }
        #expect(unfinished == 0, "\(unfinished) of 50 runs did not end within 10 s")
        let seen = orders.sorted { $0.value > $1.value }.map { "\($0.value)× [\($0.key)]" }.joined(separator: "\n")
        #expect(orders.count == 1, "50 runs handled the actions in \(orders.count) orders:\n\(seen)")
    }

    // MARK: - One effect used twice

    /// One effect value used twice in a concatenation, as two steps or mapped twice: each use starts once the
    /// one before it has ended, so it replaces nothing, and both deliver.
    @Suite(.timeLimit(.minutes(2))) struct OneEffectTwice {
        enum Key: Hashable, Sendable { case a, b }

        enum Action: Equatable, Sendable {
            case start
            case startMapped
            case searchNow
            case done(Int)
        }

        /// A concatenation of one effect twice runs it twice: the second step starts once the first
        /// has ended and its action was handled, so it replaces nothing (in a store).
        @Test func aConcatenationOfOneEffectTwiceDeliversTwice() async {
            let received = Recorder<Action>()
            let once = ActionEffect<Action> { .done(1) }
            let store = Store<Key, Action, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, action, _ in
                    received.append(action)
                    return action == .start ? .concatenate(once, once) : .none
                },
                dependency: ())
            store.handle(action: .start)
            #expect(await eventually(timeout: .seconds(60)) { received.values.count >= 3 })
            try? await Task.sleep(for: .milliseconds(50))
            #expect(received.values == [.start, .done(1), .done(1)])
        }

        /// One effect mapped twice, into a concatenation: both mapped copies keep the effect's identity,
        /// and run one after the other, each delivering.
        @Test func aConcatenationOfOneEffectMappedTwiceDeliversBoth() async {
            let received = Recorder<Action>()
            let base = ActionEffect<Int> { 1 }
            let store = Store<Key, Action, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, action, _ in
                    received.append(action)
                    guard action == .startMapped else { return .none }
                    return .concatenate(base.map { .done($0) }, base.map { .done($0 + 1) })
                },
                dependency: ())
            store.handle(action: .startMapped)
            #expect(await eventually(timeout: .seconds(60)) { received.values.count >= 3 })
            try? await Task.sleep(for: .milliseconds(50))
            #expect(received.values == [.startMapped, .done(1), .done(2)])
        }
    }
}
