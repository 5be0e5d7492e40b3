import Foundation

/// A value shared between threads, read and changed under a lock.
@usableFromInline
final class LockedValue<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    init(_ value: Value) {
        self.value = value
    }

    @inlinable
    func withValue<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
