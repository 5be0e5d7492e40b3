/// When each throttled effect of one store may start, by id: the state behind
/// ``ActionEffect/throttle(id:for:clock:latest:)``.
///
/// It keeps, for each id, the instant the last throttled effect started or is due to start, and
/// until when that start throttles the next. A store and a `TestStore` each own one, so tests never
/// share it. `lock` guards `bookings`, held only to read and change them; an id removed is released
/// once the lock is left (an id is a user's value, whose `deinit` may call back into the store).
///
/// Memory: one booking per throttle id whose interval is not over. A booking whose interval is over
/// changes nothing (the next effect under its id starts at once), so whenever the bookings have
/// doubled since they were last swept (and number 64 or more), those of the clock in hand that are
/// over are dropped; ``forget(_:)`` drops one (on `cancel`).
@usableFromInline
package final class ThrottleSchedule: @unchecked Sendable {
    /// When a throttled effect starts.
    package enum Start<Instant> {
        case now
        case at(Instant)
        case never
    }

    /// The last start under an id, and the end of the interval it throttles.
    private struct Booking<Instant: InstantProtocol>: Sendable {
        var start: Instant
        var end: Instant
    }

    private let lock = Lock()
    /// How many callers hold releases (see ``holdReleases()``), and what was let go of meanwhile.
    private var holders = 0
    private var held: [Any] = []
    private var bookings: [AnyHashable: any Sendable] = [:]
    /// How many bookings there may be before the next sweep.
    private var sweepAt = 64

    package init() {}

    /// Decides when an effect throttled under `id`, returned at `now`, starts, and records it.
    ///
    /// - At once when nothing started under `id` within `interval` before `now`.
    /// - When one is due to start later: at that instant, replacing it, when `latest`; never otherwise.
    /// - Else `interval` after the last start.
    package func start<Instant: InstantProtocol>(
        _ id: AnyHashable, at now: Instant, interval: Instant.Duration, latest: Bool
    ) -> Start<Instant> {
        // What the bookings let go of, a user's clock's instants among them, is released with the
        // lock left. (A replaced booking was released inside it: an instant whose `deinit` called
        // `cancel(id:)` on the store blocked.)
        var released: [Any] = []
        let start = lock.withLock {
            let start = decide(id, at: now, interval: interval, latest: latest, releasing: &released)
            // Held with what the bookings let go of: the caller's `now`, unless booked, is released as
            // it returns, inside the holder's lock.
            if holders > 0 { (held, released) = (held + released + [now], []) }
            return start
        }
        withExtendedLifetime(released) {}
        return start
    }

    /// From now until the matching ``releaseHeld()``, what deciding a throttle lets go of is kept, not
    /// released: for a caller that starts effects under a lock of its own (a test store's queue),
    /// where a user's clock's instants must not run their `deinit`.
    ///
    /// ```swift
    /// schedule.holdReleases()
    /// queue.withValue { $0.start(effect) }    // may decide throttles
    /// withExtendedLifetime(schedule.releaseHeld()) {}
    /// ```
    package func holdReleases() {
        lock.withLock { holders += 1 }
    }

    /// Ends a ``holdReleases()``; returns what was held, for the caller to release, once no caller
    /// holds releases any more.
    package func releaseHeld() -> [Any] {
        lock.withLock {
            holders -= 1
            guard holders == 0, !held.isEmpty else { return [] }
            defer { held = [] }
            return held
        }
    }

    /// ``start(_:at:interval:latest:)``'s decision, with the lock held; what the bookings let go of
    /// goes to `released`.
    private func decide<Instant: InstantProtocol>(
        _ id: AnyHashable, at now: Instant, interval: Instant.Duration, latest: Bool, releasing released: inout [Any]
    ) -> Start<Instant> {
        if bookings.count >= sweepAt { released.append(sweep(at: now)) }
        func book(_ start: Instant) {
            let booking = Booking(start: start, end: start.advanced(by: interval))
            if let replaced = bookings.updateValue(booking, forKey: id) { released.append(replaced) }
        }
        guard let last = bookings[id] as? Booking<Instant>, now < last.end else {
            book(now)
            return .now
        }
        if now < last.start { return latest ? .at(last.start) : .never }
        book(last.end)
        return .at(last.end)
    }

    /// Forgets when the effects under `id` started: the next one starts at once.
    @usableFromInline
    package func forget(_ id: AnyHashable) {
        let removed = lock.withLock { bookings.index(forKey: id).map { index in bookings.remove(at: index) } }
        withExtendedLifetime(removed) {}  // released with the lock left
    }

    /// Removes the bookings of `now`'s clock whose interval is over, and returns them to be released
    /// once the lock is left. Lock held.
    private func sweep<Instant: InstantProtocol>(at now: Instant) -> [(key: AnyHashable, value: any Sendable)] {
        var swept: [(key: AnyHashable, value: any Sendable)] = []
        for (id, booking) in bookings {
            if let booking = booking as? Booking<Instant>, booking.end <= now { swept.append((id, booking)) }
        }
        for (id, _) in swept { bookings.removeValue(forKey: id) }
        sweepAt = max(64, 2 * bookings.count)
        return swept
    }
}
