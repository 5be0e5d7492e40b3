import CacheStoreTesting
import Foundation
import Synchronization

/// Runs `body`, returning the failure messages `TestStore` and `unimplemented` reported in it
/// instead of failing the test.
func captureFailureMessages(_ body: () async -> Void) async -> [String] {
    let messages = Mutex<[String]>([])
    let record: TestStoreFailure.SendableHandler = { message, _, _ in messages.withLock { $0.append(message) } }
    await TestStoreFailure.withHandler(record) { await body() }
    return messages.withLock { $0 }
}

/// Waits until `condition` holds, for effects that finish on their own time; `false` after 120 s
/// (reached only when something is wrong, or when a loaded 2-core machine starves the concurrency
/// pool: under ThreadSanitizer the whole run has stalled for 30 s at its start).
func eventually(_ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(120)
    while await !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// A count that `@Sendable` closures, such as observers, can increment.
nonisolated final class Counter: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
