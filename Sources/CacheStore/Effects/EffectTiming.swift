/// A duration on a clock, for a debounced or throttled effect: what the scheduler needs of the clock,
/// with the clock's type erased.
///
/// The scheduler compares instants it was given; it never reads a clock while it holds its lock. A
/// clock's `now` is read by the effect runner, outside the lock, once per timed effect started
/// (``now()``), and the scheduler decides with that reading.
///
/// ```swift
/// let timing = ClockTiming(clock: ContinuousClock(), duration: .milliseconds(300))
/// let now = timing.now()
/// timing.isBefore(now, timing.advanced(now))    // true
/// ```
@usableFromInline
package protocol EffectTiming: Sendable {
    /// The clock's time now, as the clock's `Instant`.
    func now() -> any Sendable
    /// Whether `instant` comes before `other`; `nil` when either is not this clock's `Instant`.
    func isBefore(_ instant: any Sendable, _ other: any Sendable) -> Bool?
    /// `instant` (this clock's `Instant`) plus the timing's duration.
    func advanced(_ instant: any Sendable) -> any Sendable
    /// A wait until `instant` (this clock's `Instant`) on this clock.
    func deadline(at instant: any Sendable) -> EffectDeadline
}

/// A duration on a `Clock`: the one ``EffectTiming``.
struct ClockTiming<C: Clock>: EffectTiming {
    let clock: C
    let duration: C.Duration

    func now() -> any Sendable {
        clock.now
    }

    func isBefore(_ instant: any Sendable, _ other: any Sendable) -> Bool? {
        guard let instant = instant as? C.Instant, let other = other as? C.Instant else { return nil }
        return instant < other
    }

    func advanced(_ instant: any Sendable) -> any Sendable {
        (instant as! C.Instant).advanced(by: duration)
    }

    func deadline(at instant: any Sendable) -> EffectDeadline {
        EffectDeadline(until: instant as! C.Instant, on: clock)
    }
}

/// An instant on a clock that a debounced or throttled effect waits for.
///
/// A deadline is over once its clock reaches it, whether or not the task sleeping until it has woken
/// yet: the scheduler asks ``isReached(at:)`` with a reading of the clock, so a late timer never
/// decides (see ``EffectScheduler``).
///
/// ```swift
/// let deadline = EffectDeadline(until: clock.now.advanced(by: .seconds(1)), on: clock)
/// try await deadline.sleep()    // until then; throws when cancelled
/// ```
@usableFromInline
package struct EffectDeadline: Sendable, CustomStringConvertible {
    /// The instant, as its clock's `Instant`.
    package let instant: any Sendable
    /// The clock, for a test to tell which deadlines its clock's advance reaches.
    package let clock: any Sendable
    private let sleepUntil: @Sendable () async throws -> Void
    private let reached: @Sendable (any Sendable) -> Bool?

    /// A wait until `deadline` on `clock`.
    package init<C: Clock>(until deadline: C.Instant, on clock: C) {
        instant = deadline
        self.clock = clock
        sleepUntil = { try await clock.sleep(until: deadline, tolerance: nil) }
        reached = { now in (now as? C.Instant).map { deadline <= $0 } }
    }

    /// Sleeps until the deadline on its clock; throws when the task is cancelled.
    package func sleep() async throws {
        try await sleepUntil()
    }

    /// Whether the clock reading `now` is at or past the deadline; `false` when `now` is another
    /// clock's instant.
    package func isReached(at now: any Sendable) -> Bool {
        reached(now) ?? false
    }

    @usableFromInline package var description: String {
        "\(instant) on \(type(of: clock))"
    }
}
