import Foundation

/// A value several threads set and read, under a lock.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withValue<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }

    var current: Value { lock.withLock { value } }
}

/// Runs `body` in a task of its own and waits for its result, polling, for at most `timeout`.
///
/// Returns `nil` when it did not end in time; the task is then cancelled. So a test never waits
/// without a bound for a task, and never leaves one running.
func awaitResult<Value: Sendable>(
    within timeout: Duration, _ body: @escaping @Sendable () async throws -> Value
) async -> Result<Value, any Error>? {
    let outcome = LockedBox<Result<Value, any Error>?>(nil)
    let task = Task {
        let result: Result<Value, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withValue { $0 = result }
    }
    defer { task.cancel() }
    _ = await eventually(timeout: timeout) { outcome.current != nil }
    return outcome.current
}

/// Runs `body` on a thread of its own (not the concurrency pool) and waits, polling, for at most
/// `timeout` for it to return; returns its result, or `nil` when it did not return in time (the
/// thread then runs on).
func offThePool<Value: Sendable>(within timeout: Duration, _ body: @escaping @Sendable () -> Value) async -> Value? {
    let outcome = LockedBox<Value?>(nil)
    Thread { outcome.withValue { $0 = body() } }.start()
    _ = await eventually(timeout: timeout) { outcome.current != nil }
    return outcome.current
}

/// Runs `body` on a thread of its own (not the concurrency pool) and waits, polling, for at most
/// `timeout` for it to return; returns whether it did.
func returnsOffThePool(within timeout: Duration, _ body: @escaping @Sendable () -> Void) async -> Bool {
    await offThePool(within: timeout) { body() } != nil
}
