import Foundation

/// A result that arrives once, from another task, waited for with a time limit.
///
/// The synchronous wait never blocks the main thread outright: there it keeps running the main run
/// loop, so work the producer schedules on the main actor still runs.
final class Completion<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Value?
    private var isDone = false
    private var waiter: CheckedContinuation<Void, Never>?

    /// Delivers `value`; only the first call counts.
    func complete(_ value: Value?) {
        condition.lock()
        guard !isDone else {
            condition.unlock()
            return
        }
        isDone = true
        result = value
        let waiter = self.waiter
        self.waiter = nil
        condition.broadcast()
        condition.unlock()
        waiter?.resume()
    }

    /// Waits for the value; `nil` when `timeout` passes first.
    func value(timeout: Duration) async -> Value? {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.complete(nil)
        }
        await withCheckedContinuation { continuation in
            condition.lock()
            if isDone {
                condition.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                condition.unlock()
            }
        }
        timer.cancel()
        return condition.withLock { result }
    }

    /// Blocks the calling thread until the value arrives; `nil` when `timeout` passes first.
    func valueBlocking(timeout: Duration) -> Value? {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        if Thread.isMainThread {
            while !condition.withLock({ isDone }), Date() < deadline {
                if !RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.002)) {
                    Thread.sleep(forTimeInterval: 0.001)
                }
            }
        } else {
            condition.lock()
            while !isDone, condition.wait(until: deadline) {}
            condition.unlock()
        }
        complete(nil)
        return condition.withLock { result }
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
