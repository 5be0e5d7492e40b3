/// Shared mutable state inside the lock that guards it: the compiler checks that every access holds
/// the lock, as `ManagedCriticalState` and `Mutex` do. For state off the hot paths; waiters can
/// wait for a change (``wait(until:timeout:)``).
///
/// ```swift
/// let jobs = Locked<[String]>([])
/// jobs.withLock { $0.append("next") }
/// let isDone = jobs.wait(until: { $0.isEmpty }, timeout: .seconds(1))
/// ```
///
/// `State` is released and replaced only under the lock; a user's value that must be released with
/// the lock left is taken out of the state first and returned from `withLock`.
@usableFromInline
package final class Locked<State>: @unchecked Sendable {
    @usableFromInline let lock = ConditionLock()
    @usableFromInline var state: State

    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` on the state with the lock held; wakes every waiter afterwards.
    @inlinable
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer {
            lock.unlock()
            lock.broadcast()
        }
        return try body(&state)
    }

    /// Waits until `condition` holds of the state, or `timeout` has passed; returns whether it held.
    /// Every ``withLock(_:)`` wakes waiters to check again.
    package func wait(until condition: (State) -> Bool, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        lock.lock()
        defer { lock.unlock() }
        while !condition(state) {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero, lock.wait(timeout: left) else { return condition(state) }
        }
        return true
    }
}
