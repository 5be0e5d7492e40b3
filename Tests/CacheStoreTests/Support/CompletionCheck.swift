import Foundation
import Testing

/// Runs `body` on a thread of its own and waits up to `seconds` for it to return, without blocking
/// the concurrency pool. A `body` that never returns (a deadlock) is abandoned on its thread, so one
/// deadlocking test cannot hang the run.
///
/// - Returns: Whether `body` returned in time.
func finishes(within seconds: Double = 10, _ body: @escaping @Sendable () -> Void) async -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }
    .start()
    return await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: done.wait(timeout: .now() + seconds) == .success) }.start()
    }
}

/// ``finishes(within:_:)``, recording an issue that names `operation` when it does not return in time.
///
/// - Returns: Whether `body` returned in time, so that checks of its results can be skipped if not.
@discardableResult
func expectFinishes(
    _ operation: String,
    within seconds: Double = 10,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Void
) async -> Bool {
    let finished = await finishes(within: seconds, body)
    if !finished {
        Issue.record(
            Comment(rawValue: "\(operation) deadlocked: still running after \(seconds) s"),
            sourceLocation: sourceLocation)
    }
    return finished
}
