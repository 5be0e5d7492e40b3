/// What a debounced or throttled effect waits for: a deadline on a clock.
///
/// ```swift
/// let wait = EffectWait(until: clock.now.advanced(by: .milliseconds(300)), on: clock)
/// try await wait()                     // sleeps until the deadline; throws when cancelled
/// wait.timeLeft(on: clock)             // .milliseconds(300) now, on that clock; nil on another
/// ```
///
/// A test store reads ``timeLeft(on:)`` to tell which of its queued waits a clock's advance ends.
@usableFromInline
package struct EffectWait: Sendable {
    @usableFromInline let sleep: @Sendable () async throws -> Void
    private let left: @Sendable (AnyObject) -> Duration?
    private let over: @Sendable () -> Bool

    /// A wait until `deadline` on `clock`.
    @usableFromInline
    package init<C: Clock>(until deadline: C.Instant, on clock: C) {
        sleep = { try await clock.sleep(until: deadline, tolerance: nil) }
        left = { other in
            // The same clock object (a test clock is a class; a value clock is never the same).
            guard other === (clock as AnyObject) else { return nil }
            return clock.now.duration(to: deadline) as? Duration
        }
        over = { clock.now >= deadline }
    }

    /// Sleeps until the deadline; throws when cancelled.
    @inlinable
    package func callAsFunction() async throws {
        try await sleep()
    }

    /// How long `clock` has left until the deadline (negative once past it); `nil` when the wait is
    /// on another clock, or on one whose durations are not `Duration`s.
    package func timeLeft(on clock: AnyObject) -> Duration? {
        left(clock)
    }

    /// Whether its clock has reached the deadline: a sleep until it returns at once.
    package var isOver: Bool {
        over()
    }
}
