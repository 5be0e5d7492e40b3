/// Someone told of changes to a key space: which keys changed after each change, and when the key
/// space itself is released.
@usableFromInline
struct Subscriber<Key: Hashable>: @unchecked Sendable {
    @usableFromInline var onChange: (Set<Key>) -> Void
    @usableFromInline var onEnd: () -> Void
}

/// A registration that ends when ``cancel()`` is called or the subscription is released.
@usableFromInline
final class Subscription: @unchecked Sendable {
    private let lock = Lock()
    private var onCancel: [() -> Void]

    init(_ onCancel: @escaping () -> Void) {
        self.onCancel = [onCancel]
    }

    /// A subscription that cancels all of `parts` together.
    init(combining parts: [Subscription]) {
        self.onCancel = parts.map { part in part.cancel }
    }

    func cancel() {
        let actions = lock.withLock {
            defer { onCancel = [] }
            return onCancel
        }
        for action in actions { action() }
    }

    deinit { cancel() }
}
