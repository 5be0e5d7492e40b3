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
        let (start, swept) = lock.withLock {
            let swept = bookings.count >= sweepAt ? sweep(at: now) : []
            guard let last = bookings[id] as? Booking<Instant>, now < last.end else {
                bookings[id] = Booking(start: now, end: now.advanced(by: interval))
                return (Start<Instant>.now, swept)
            }
            if now < last.start { return (latest ? .at(last.start) : .never, swept) }
            bookings[id] = Booking(start: last.end, end: last.end.advanced(by: interval))
            return (.at(last.end), swept)
        }
        withExtendedLifetime(swept) {}  // released with the lock left
        return start
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
