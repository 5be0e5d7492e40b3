import Foundation

/// A count several threads change.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func add(_ amount: Int) {
        lock.withLock { count += amount }
    }
}
