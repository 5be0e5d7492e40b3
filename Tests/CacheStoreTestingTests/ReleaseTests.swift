import CacheStoreTesting
import Foundation
import Testing

/// An effect holds a user's closure, and so whatever it captured; an output or failure handler is a
/// user's closure too. When one is let go of, its captures' `deinit` may call the test store: that
/// must happen with none of the test store's (or the store's) locks held.
@Suite(.timeLimit(.minutes(1))) struct ReleaseTests {
    /// Runs `onRelease` when released.
    final class Probe: @unchecked Sendable {
        let onRelease: @Sendable () -> Void
        init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    /// What the probes saw: each read's result, and the reads that did not return in time.
    final class Probes<Seen>: @unchecked Sendable {
        let seen = LockedList<Seen>()
        let blocked = LockedList<String>()

        /// Runs `read` on another thread, so that a lock the caller holds blocks it instead of
        /// deadlocking the test, and waits up to 2 s for it; a read that did not return is recorded.
        func read(_ what: String, _ read: @escaping @Sendable () -> Seen) {
            let done = DispatchSemaphore(value: 0)
            Thread {
                self.seen.append(read())
                done.signal()
            }
            .start()
            if done.wait(timeout: .now() + 2) == .timedOut { blocked.append(what) }
        }
    }

    enum Action: Sendable {
        case start, stop, startConcatenation
    }

    enum EffectID: Hashable { case probed }

    /// The test store, weakly, for the probes its effects capture.
    final class StoreReference: @unchecked Sendable {
        weak var store: TestStore<Int, Action, Void>?
    }

    /// A test store whose `.start` queues an effect under ``EffectID/probed`` (and `.startConcatenation`
    /// a concatenation under `"chain"`) capturing a probe that, when released, reads the test store's
    /// queued effect ids.
    static func makeStore(_ probes: Probes<[AnyHashable]>) -> TestStore<Int, Action, Void> {
        let reference = StoreReference()
        let handler = StoreActionHandler<Int, Action, Void> { _, action, _ in
            func probed(_ id: AnyHashable) -> ActionEffect<Action> {
                let probe = Probe { probes.read("runningEffectIDs") { reference.store?.runningEffectIDs ?? [] } }
                return ActionEffect(id: id) {
                    withExtendedLifetime(probe) {}
                    return nil
                }
            }
            switch action {
            case .start: return probed(EffectID.probed)
            case .startConcatenation: return .concatenate(id: "chain", probed("first"))
            case .stop: return .cancel(id: EffectID.probed)
            }
        }
        let store = TestStore(initialValues: [:], actionHandler: handler, dependency: ())
        reference.store = store
        return store
    }

    /// An effect replaced by one with its id is cancelled; its task runs when the test lets effects
    /// run, and releases its closure with no lock held.
    @Test func anEffectReplacedByOneWithItsIDIsReleasedWithNoLockHeld() {
        let probes = Probes<[AnyHashable]>()
        let store = Self.makeStore(probes)
        store.send(.start)
        store.send(.start)
        store.finish()
        #expect(probes.blocked.values.isEmpty, "an effect was released inside a lock")
        #expect(probes.seen.values == [[AnyHashable(EffectID.probed)], []])
    }

    /// …or cancelled by a `.cancel(id:)` effect, or by `cancel(id:)`.
    @Test func aCancelledEffectIsReleasedWithNoLockHeld() {
        let probes = Probes<[AnyHashable]>()
        let store = Self.makeStore(probes)
        store.send(.start)
        store.send(.stop)
        store.send(.start)
        store.cancel(id: EffectID.probed)
        store.finish()
        #expect(probes.blocked.values.isEmpty, "an effect was released inside a lock")
        #expect(probes.seen.values == [[], []])
    }

    /// …or cancelled as a part of a concatenation that one with the concatenation's id replaces.
    @Test func aPartReplacedWithItsConcatenationIsReleasedWithNoLockHeld() {
        let probes = Probes<[AnyHashable]>()
        let store = Self.makeStore(probes)
        store.send(.startConcatenation)
        store.send(.startConcatenation)
        store.cancel(id: "chain")
        store.finish()
        #expect(probes.blocked.values.isEmpty, "an effect was released inside a lock")
        #expect(probes.seen.values.count == 2)
    }

    /// The output replaced by a new one is released with no lock held.
    @Test func aReplacedSkippedAssertionsOutputIsReleasedOutsideTheSettingsLock() {
        let probes = Probes<Exhaustivity>()
        let store = TestStore<Int, Action, Void>(initialValues: [:], actionHandler: .none, dependency: ())
        let reference = StoreReference()
        reference.store = store
        let probe = Probe { probes.read("exhaustivity") { reference.store?.exhaustivity ?? .off } }
        store.skippedAssertionsOutput = { _ in withExtendedLifetime(probe) {} }
        _ = consume probe
        store.skippedAssertionsOutput = { _ in }
        #expect(probes.blocked.values.isEmpty, "the output was released inside the settings' lock")
        #expect(probes.seen.values == [.on])
    }

    /// The failure handler replaced by a new one is released with no lock held.
    @Test func aReplacedFailureHandlerIsReleasedOutsideItsLock() {
        let probes = Probes<Bool>()
        let previous = TestStoreFailure.handler
        do {
            let probe = Probe { probes.read("handler") { TestStoreFailure.handler != nil } }
            TestStoreFailure.handler = { _, _, _ in withExtendedLifetime(probe) {} }
        }
        TestStoreFailure.handler = previous
        #expect(probes.blocked.values.isEmpty, "the failure handler was released inside its lock")
        #expect(probes.seen.values.count == 1)
    }

    /// A concatenation finish() cancels is released with no lock held: its id may read the test store.
    /// (From review 14, where the test store's queue released it inside its lock.)
    @Test func aConcatenationFinishCancelsIsReleasedWithNoLockHeld() async {
        let probes = Probes<[AnyHashable]>()
        let reference = StoreReference()
        let handler = StoreActionHandler<Int, Action, Void> { _, action, _ in
            guard case .startConcatenation = action else { return .none }
            return .concatenate(
                id: ProbedID { probes.read("runningEffectIDs") { reference.store?.runningEffectIDs ?? [] } },
                ActionEffect {
                    try? await Task.sleep(for: .seconds(60))
                    return nil
                })
        }
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: handler, dependency: ())
            reference.store = store
            store.effectTimeout = .milliseconds(30)
            store.send(.startConcatenation)
            await store.finish()
            #expect(await eventually { !probes.seen.values.isEmpty })
        }
        #expect(failures.count == 1)
        #expect(probes.blocked.values.isEmpty, "the concatenation's id was released inside a lock")
        #expect(probes.seen.values.count == 1)
    }

    /// An effect id that runs `onRelease` when its last copy goes. All are equal, so a new one names
    /// the running one.
    final class ProbedID: Hashable, @unchecked Sendable {
        let onRelease: @Sendable () -> Void
        init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
        static func == (lhs: ProbedID, rhs: ProbedID) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }
}
