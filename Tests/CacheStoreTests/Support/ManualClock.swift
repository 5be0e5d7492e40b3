import Foundation

/// A clock whose time and whose sleepers' wake-ups a test moves separately, so that "a timer that
/// fires late" is a step of the test, not a matter of load.
///
/// ```swift
/// let clock = ManualClock()
/// clock.setTime(to: .milliseconds(350))  // now is 350 ms; a sleeper due at 300 ms still sleeps
/// clock.wakeSleepers()                   // now it wakes (every sleeper due by now, in deadline order)
/// clock.advance(by: .seconds(1))         // both at once
/// ```
///
/// A sleep whose deadline is already reached when it begins returns at once, as on a real clock. A
/// cancelled sleeper is removed and throws `CancellationError`; a sleeper woken and cancelled at the
/// same instant returns normally (the wake is never lost). `NSLock` guards the state, held only to
/// read or change it; continuations are resumed with it released.
final class ManualClock: Clock, @unchecked Sendable {
    /// A point on a manual clock: its offset from the clock's zero.
    struct Instant: InstantProtocol, CustomStringConvertible {
        var offset: Duration

        init(offset: Duration = .zero) {
            self.offset = offset
        }

        func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        var description: String { "ManualClock.Instant(\(offset))" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current: Instant
    private var sleepers: [Sleeper] = []
    private var nextID: UInt64 = 0
    private var begun = 0

    /// A clock standing at `now` (its zero by default) until the test moves it.
    init(now: Instant = Instant()) {
        current = now
    }

    var now: Instant { lock.withLock { current } }

    var minimumResolution: Duration { .zero }

    /// The tasks asleep on the clock now.
    var sleeperCount: Int { lock.withLock { sleepers.count } }

    /// How many sleeps ever went to sleep on the clock (those that returned at once not counted).
    var sleepsBegun: Int { lock.withLock { begun } }

    /// The deadlines of the sleepers, earliest first.
    var deadlines: [Instant] { lock.withLock { sleepers.map(\.deadline).sorted() } }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Under the lock: a cancellation either came first (its flag is set before its handler
                // runs) and is seen here, or comes after and finds the sleeper to remove.
                let outcome: (any Error)?? = lock.withLock {
                    if Task.isCancelled { return .some(CancellationError()) }
                    if deadline <= current { return .some(nil) }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    begun += 1
                    return .none
                }
                switch outcome {
                case .none: break
                case .some(.none): continuation.resume()
                case .some(.some(let error)): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let removed: Sleeper? = lock.withLock {
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index)
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves `now` to `instant` (never backwards) without waking anyone.
    func setTime(to instant: Instant) {
        lock.withLock { current = max(current, instant) }
    }

    /// Moves `now` to `offset` from the clock's zero (never backwards) without waking anyone.
    func setTime(to offset: Duration) {
        setTime(to: Instant(offset: offset))
    }

    /// Moves `now` forward by `duration` without waking anyone.
    func advanceTime(by duration: Duration) {
        lock.withLock { current = current.advanced(by: max(duration, .zero)) }
    }

    /// Resumes every sleeper whose deadline is at or before `now`, in deadline order (those with one
    /// deadline in the order they fell asleep); returns how many it woke.
    @discardableResult
    func wakeSleepers() -> Int {
        let due: [Sleeper] = lock.withLock {
            let due = sleepers.enumerated()
                .filter { $0.element.deadline <= current }
                .sorted { ($0.element.deadline, $0.offset) < ($1.element.deadline, $1.offset) }
                .map(\.element)
            let dueIDs = Set(due.map(\.id))
            sleepers.removeAll { dueIDs.contains($0.id) }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
        return due.count
    }

    /// Moves `now` forward by `duration`, then wakes every sleeper due by then.
    @discardableResult
    func advance(by duration: Duration) -> Int {
        advanceTime(by: duration)
        return wakeSleepers()
    }

    /// Moves `now` to `offset` from the clock's zero, then wakes every sleeper due by then.
    @discardableResult
    func advance(to offset: Duration) -> Int {
        setTime(to: offset)
        return wakeSleepers()
    }

    /// Waits, polling, until at least `count` tasks are asleep on the clock, or `timeout` passes;
    /// returns whether they were.
    func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(5)) async -> Bool {
        await eventually(timeout: timeout) { sleeperCount >= count }
    }
}
