import Foundation

/// How a wait for a result ended.
enum WaitOutcome<Value> {
    /// The result arrived.
    case value(Value)
    /// The time limit passed first.
    case timedOut
    /// The waiting task was cancelled first.
    case cancelled
}

/// A result that arrives once, from another task, waited for with a time limit.
///
/// The synchronous wait never blocks the main thread outright: there it keeps running the main run
/// loop, so work the producer schedules on the main actor still runs.
final class Completion<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var outcome: WaitOutcome<Value>?
    private var waiter: CheckedContinuation<Void, Never>?
    /// Set while the main thread waits in its run loop, which then needs a wake-up.
    private var wakesMainRunLoop = false

    /// Whether the wait is over: the value arrived, or the wait gave up.
    var hasEnded: Bool {
        condition.withLock { outcome != nil }
    }

    /// Delivers `value`; only the first outcome counts.
    func complete(_ value: Value) {
        end(.value(value))
    }

    /// Waits for the value, until `timeout` passes or the calling task is cancelled.
    func value(timeout: Duration) async -> WaitOutcome<Value> {
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.end(.timedOut)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                condition.lock()
                if outcome == nil {
                    waiter = continuation
                    condition.unlock()
                } else {
                    condition.unlock()
                    continuation.resume()
                }
            }
        } onCancel: {
            end(.cancelled)
        }
        timer.cancel()
        return condition.withLock { outcome ?? .cancelled }
    }

    /// Blocks the calling thread until the value arrives, or until `timeout` passes.
    func valueBlocking(timeout: Duration) -> WaitOutcome<Value> {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        if Thread.isMainThread {
            condition.withLock { wakesMainRunLoop = true }
            // The timer gives the run loop a source until the deadline, so `run(mode:before:)` sleeps
            // until something happens rather than returning at once; `end` wakes it.
            let timer = Timer(fire: deadline, interval: 0, repeats: false) { _ in }
            RunLoop.current.add(timer, forMode: .default)
            while condition.withLock({ outcome == nil }), Date() < deadline {
                _ = RunLoop.current.run(mode: .default, before: deadline)
            }
            timer.invalidate()
        } else {
            condition.lock()
            while outcome == nil, condition.wait(until: deadline) {}
            condition.unlock()
        }
        end(.timedOut)
        return condition.withLock { outcome ?? .timedOut }
    }

    private func end(_ outcome: WaitOutcome<Value>) {
        condition.lock()
        guard self.outcome == nil else {
            condition.unlock()
            return
        }
        self.outcome = outcome
        let waiter = self.waiter
        self.waiter = nil
        let wakesMainRunLoop = self.wakesMainRunLoop
        condition.broadcast()
        condition.unlock()
        waiter?.resume()
        if wakesMainRunLoop { DispatchQueue.main.async {} }
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
