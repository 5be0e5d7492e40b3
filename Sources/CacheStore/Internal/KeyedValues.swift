import Observation

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
    /// A key's entry: its value, and the key path observers of the key are registered under, once
    /// the key has been read. One lookup finds both.
    @usableFromInline
    struct Slot {
        /// `nil`: the key has no value, but its slot stays because it may be observed.
        @usableFromInline var value: Any?
        @usableFromInline var keyPath: KeyObservation<Key>.KeyPathForKey?

        @inlinable init(value: Any?, keyPath: KeyObservation<Key>.KeyPathForKey?) {
            self.value = value
            self.keyPath = keyPath
        }
    }

    @usableFromInline let lock: Lock
    @exclusivity(unchecked) @usableFromInline var slots: [Key: Slot]
    @usableFromInline let observation = KeyObservation<Key>()
    @exclusivity(unchecked) @usableFromInline var subscribers: [UInt64: Subscriber<Key>] = [:]
    private var nextSubscriberID: UInt64 = 0
    /// Keys written since the last publish that someone may be watching.
    @exclusivity(unchecked) @usableFromInline var unpublishedKeys: [Key] = []

    @inlinable
    init(lock: Lock, values: [Key: Any]) {
        self.lock = lock
        self.slots = values.mapValues { Slot(value: $0, keyPath: nil) }
    }

    deinit {
        for subscriber in subscribers.values { subscriber.onEnd() }
    }

    /// The value of `key`, recording the read for any `withObservationTracking` on this thread.
    ///
    /// The slot is reached in place (no copy of it), and made on the key's first read: an absent
    /// key is observable too, as a view that reads it must learn when it appears.
    @inlinable
    func valueLocked(_ key: Key) -> Any? {
        Self.read(&slots[key, default: Slot(value: nil, keyPath: nil)], of: key, observation: observation)
    }

    @inlinable
    static func read(_ slot: inout Slot, of key: Key, observation: KeyObservation<Key>) -> Any? {
        if slot.keyPath == nil { slot.keyPath = observation.keyPath(for: key) }
        observation.registrar.access(observation, keyPath: slot.keyPath.unsafelyUnwrapped)
        return slot.value
    }

    /// The value of `key`, without recording the read.
    @inlinable
    func peekLocked(_ key: Key) -> Any? {
        slots[key]?.value
    }

    /// Every key that has a value, with its value, without recording the reads.
    var valuesLocked: [Key: Any] {
        slots.compactMapValues(\.value)
    }

    /// Records reads of every present key, for reads of whole-cache views such as `allValues`.
    func accessAllLocked() {
        let present = slots.compactMap { key, slot in slot.value == nil ? nil : key }
        for key in present { _ = valueLocked(key) }
    }

    /// Sets (or, for `nil`, removes) the value of `key`, and returns the value it replaces.
    @inlinable
    @discardableResult
    func writeLocked(_ value: Any?, for key: Key, into batch: inout ChangeBatch) -> Any? {
        let previous: Any?
        let isObserved: Bool
        if let value {
            (previous, isObserved) = Self.replace(&slots[key, default: Slot(value: nil, keyPath: nil)], with: value)
        } else if let slot = slots[key] {
            previous = slot.value
            isObserved = slot.keyPath != nil
            // An observed key keeps its slot (and key path) without a value.
            if isObserved { slots[key]?.value = nil } else { slots.removeValue(forKey: key) }
        } else {
            (previous, isObserved) = (nil, false)
        }
        if isObserved || !subscribers.isEmpty {
            if unpublishedKeys.isEmpty { batch.append(self) }
            unpublishedKeys.append(key)
        }
        return previous
    }

    /// Puts `value` in `slot`; returns the value it had and whether the key may be observed.
    @inlinable
    static func replace(_ slot: inout Slot, with value: Any) -> (previous: Any?, isObserved: Bool) {
        let previous = slot.value
        slot.value = value
        return (previous, slot.keyPath != nil)
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
    @inlinable
    func publishPending() {
        lock.lock()
        guard !unpublishedKeys.isEmpty else { return lock.unlock() }
        var keys: [Key] = []
        swap(&keys, &unpublishedKeys)
        var keyPaths: [KeyObservation<Key>.KeyPathForKey] = []
        for key in keys {
            if let keyPath = slots[key]?.keyPath { keyPaths.append(keyPath) }
        }
        let listeners = subscribers.isEmpty ? [] : Array(subscribers.values)
        lock.unlock()
        observation.notify(keyPaths)
        guard !listeners.isEmpty else { return }
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
        pending.append { values.publishPending() }
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
    @usableFromInline var onChange: (Set<Key>) -> Void
    @usableFromInline var onEnd: () -> Void
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
