/// The storage engine: the values of one key space, with per-key observation and change subscribers.
///
/// A tree of caches (a root and its scopes) shares one ``Lock``; every method whose name ends in
/// `Locked` must be called with it held. Changes are published after the lock is released, through a
/// ``ChangeBatch``, so observers may read the store.
///
/// The read and write paths are `@inlinable`: a client's concrete key type specializes them, so a
/// read or write costs a dictionary operation, not a generic one.
@usableFromInline
final class KeyedValues<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    @usableFromInline let lock: Lock
    @exclusivity(unchecked) @usableFromInline var values: [Key: Any]
    @usableFromInline let observation = KeyObservation<Key>()
    @exclusivity(unchecked) @usableFromInline var subscribers: [UInt64: Subscriber<Key>] = [:]
    private var nextSubscriberID: UInt64 = 0
    /// Keys written since the last publish that someone may be watching.
    @exclusivity(unchecked) @usableFromInline var unpublishedKeys: [Key] = []

    @inlinable
    init(lock: Lock, values: [Key: Any]) {
        self.lock = lock
        self.values = values
    }

    deinit {
        for subscriber in subscribers.values { subscriber.onEnd() }
    }

    @inlinable
    func valueLocked(_ key: Key) -> Any? {
        observation.accessLocked(key)
        return values[key]
    }

    /// Records reads of every present key, for reads of whole-cache views such as `allValues`.
    func accessAllLocked() {
        for key in values.keys { observation.accessLocked(key) }
    }

    /// Sets (or, for `nil`, removes) the value of `key`, and returns the value it replaces.
    @inlinable
    @discardableResult
    func writeLocked(_ value: Any?, for key: Key, into batch: inout ChangeBatch) -> Any? {
        let previous: Any?
        if let value {
            previous = values.updateValue(value, forKey: key)
        } else {
            previous = values.removeValue(forKey: key)
        }
        if !subscribers.isEmpty || observation.keyPathLocked(key) != nil {
            if unpublishedKeys.isEmpty { batch.append(self) }
            unpublishedKeys.append(key)
        }
        return previous
    }

    func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        let id = lock.withLock {
            nextSubscriberID += 1
            subscribers[nextSubscriberID] = subscriber
            return nextSubscriberID
        }
        return Subscription { [weak self] in
            guard let self else { return }
            _ = lock.withLock { self.subscribers.removeValue(forKey: id) }
        }
    }

    /// Notifies observers and subscribers of the keys written since the last publish.
    /// Called without the lock held.
    @usableFromInline
    func publishPending() {
        lock.lock()
        let keys = unpublishedKeys
        unpublishedKeys.removeAll(keepingCapacity: true)
        let keyPaths = keys.compactMap(observation.keyPathLocked)
        let listeners = Array(subscribers.values)
        lock.unlock()
        guard !keys.isEmpty else { return }
        observation.notify(keyPaths)
        let changed = Set(keys)
        for listener in listeners { listener.onChange(changed) }
    }
}

/// Key spaces written under the lock whose changes are to be published once it is released.
@usableFromInline
struct ChangeBatch {
    @usableFromInline var pending: [() -> Void] = []

    @inlinable init() {}

    @inlinable
    mutating func append<Key>(_ values: KeyedValues<Key>) {
        pending.append(values.publishPending)
    }

    /// Publishes every change recorded. Call without holding the lock.
    @inlinable
    func publish() {
        for publish in pending { publish() }
    }
}

/// Someone told of changes to a key space: which keys changed after each change, and when the key
/// space itself is released.
@usableFromInline
struct Subscriber<Key: Hashable> {
    var onChange: (Set<Key>) -> Void
    var onEnd: () -> Void
}

/// A registration that ends when ``cancel()`` is called or the subscription is released.
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
