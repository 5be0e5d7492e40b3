import CacheStore
import Foundation
import Testing

/// A throttled effect's schedule keeps the instants of a user's clock. When it lets go of one (a
/// booking replaced), an instant holding a value whose `deinit` calls the store must be released with
/// the schedule's lock left: `cancel(id:)` takes that lock too.
@Suite(.timeLimit(.minutes(2))) struct ThrottleBookingReleaseTests {
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
    ///
    /// Failed before the fix: `ThrottleSchedule.start` replaced the booking with `bookings[id] = …`
    /// inside its lock, where the replaced booking was released.
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
