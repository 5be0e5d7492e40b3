import CacheStore
import Foundation
import Testing

/// What the effect engine keeps of the user's values (an effect's id, a throttle's readings of the user's
/// clock) is released with no lock held: a `deinit` that calls the store from there never deadlocks.
@Suite(.timeLimit(.minutes(2))) struct EffectValueReleaseTests {
    /// The actions of ``EffectLifecycleTests/ticking(counting:yieldingEvery:stopsWhenCancelled:ended:)``.
    typealias SendAction = EffectLifecycleTests.SendAction

    // MARK: - An effect's id

    /// An effect id whose `deinit` reads the store's running effects, from another thread so that the
    /// test cannot hang: the id of an effect that was replaced, released when its replacement ends. The
    /// runner's table keeps the first of two equal ids as its key, and lets go of it with its lock left.
    @Test func anEffectIDIsNeverReleasedInsideTheRunnersLock() async {
        final class ProbingID: Hashable, @unchecked Sendable {
            weak var store: Store<Key, SendAction, Void>?
            let blocked: AttackBox<Int>
            init(_ store: Store<Key, SendAction, Void>?, _ blocked: AttackBox<Int>) {
                (self.store, self.blocked) = (store, blocked)
            }
            deinit {
                guard let store else { return }
                if !returnsWithinTwoSeconds({ _ = store.runningEffectIDs }) { blocked.value += 1 }
            }
            static func == (lhs: ProbingID, rhs: ProbingID) -> Bool { true }
            func hash(into hasher: inout Hasher) {}
        }
        let blocked = AttackBox(0)
        let gate = Gate()
        let storeBox = AttackBox<Store<Key, SendAction, Void>?>(nil)
        let started = AttackBox(0)
        let handler = StoreActionHandler<Key, SendAction, Void> { _, action, _ in
            guard case .start = action else { return .none }
            started.value += 1
            let isFirst = started.value == 1
            return ActionEffect(id: ProbingID(storeBox.value, blocked)) {
                if isFirst { await gate.wait() }  // still running when the second replaces it
                return nil
            }
        }
        let store = Store(initialValues: [:], actionHandler: handler)
        storeBox.value = store
        store.handle(action: .start)
        store.handle(action: .start)  // replaces the first; then ends at once
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(100))
        gate.open()
        #expect(blocked.value == 0, "an effect id was released inside EffectRunner.lock")
    }

    // MARK: - A throttle's readings of its clock

    /// Runs `onRelease` when released.
    final class Probe: Sendable {
        let onRelease: @Sendable () -> Void
        init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    /// A clock whose `now` is always zero, each reading holding a new probe; instants advanced from it
    /// hold none. Its sleeps return at once.
    struct ProbingClock: Clock {
        struct Instant: InstantProtocol {
            var offset: Duration
            var probe: Probe?

            func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
            func duration(to other: Instant) -> Duration { other.offset - offset }
            static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
            static func == (lhs: Instant, rhs: Instant) -> Bool { lhs.offset == rhs.offset }
            func hash(into hasher: inout Hasher) { hasher.combine(offset) }
        }

        let makeProbe: @Sendable () -> Probe

        var now: Instant { Instant(offset: .zero, probe: makeProbe()) }
        var minimumResolution: Duration { .zero }
        func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
    }

    /// The second throttled start within the interval replaces the first one's booking, which holds
    /// the first reading of the clock: its probe calls `cancel(id:)` on another thread (so that the test
    /// cannot hang) and waits up to 2 s for it.
    @Test
    func aReplacedThrottleBookingIsReleasedOutsideTheSchedulesLock() {
        enum Action: Sendable { case throttled }
        let blocked = AttackBox(0)
        let storeBox = AttackBox<Store<Key, Action, Void>?>(nil)
        let clock = ProbingClock {
            Probe {
                guard let store = storeBox.value else { return }
                if !returnsWithinTwoSeconds({ store.cancel(id: "unrelated") }) { blocked.value += 1 }
            }
        }
        let handler = StoreActionHandler<Key, Action, Void> { _, _, _ in
            ActionEffect { nil }.throttle(id: "throttled", for: .seconds(10), clock: clock, latest: false)
        }
        let store = Store(initialValues: [:], actionHandler: handler)
        storeBox.value = store
        store.handle(action: .throttled)
        store.handle(action: .throttled)
        storeBox.value = nil
        #expect(blocked.value == 0, "a booking was released inside ThrottleSchedule.lock")
    }
}
