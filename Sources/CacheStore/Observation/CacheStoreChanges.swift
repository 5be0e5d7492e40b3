/// The keys of a ``CacheStore`` (or ``Store``) that change, as an `AsyncSequence`.
///
/// Each element names the keys one write or one action changed. A consumer that falls behind
/// receives the waiting changes merged into one; past ``pendingKeyLimit`` distinct keys they become
/// ``ChangedKeys/everyKey``, which tells it to read again everything it shows. So no change is lost,
/// and memory stays bounded however slow the consumer is. Iteration ends when the task is cancelled
/// or the store is released.
///
/// ```swift
/// let redraws = Task {
///     for await keys in store.changes where keys.contains(.posts) {
///         render(store.get(.posts, as: [Post].self) ?? [])
///     }
/// }
/// ```
///
/// Subscription starts when the iterator is made (`for await` makes it): changes before that are not
/// delivered.
///
/// ## Topics
///
/// ### Iterating
///
/// - ``makeAsyncIterator()``
/// - ``Iterator``
/// - ``Element``
/// - ``pendingKeyLimit``
public struct CacheStoreChanges<Key: Hashable & SendableMetatype>: AsyncSequence, @unchecked Sendable {
    /// The keys one change (or several merged) touched.
    public typealias Element = ChangedKeys<Key>

    /// How many distinct changed keys wait for a busy consumer before they merge into
    /// ``ChangedKeys/everyKey``.
    public static var pendingKeyLimit: Int { 1_024 }

    /// The store's storage, held weakly: a sequence kept (a loop's `let changes = store.changes`)
    /// must not keep a released store's storage, whose release ends every iteration over it.
    weak var core: (any StorageCore<Key>)?

    /// Starts listening for changes.
    ///
    /// - Returns: An iterator that yields the changed keys.
    public func makeAsyncIterator() -> Iterator {
        Iterator(buffer: ChangeBuffer(core: core, limit: Self.pendingKeyLimit))
    }

    /// Yields the keys that changed, waiting for the next change when none is buffered.
    ///
    /// Copies of an iterator share what it buffers: when tasks wait in `next()` on copies at once,
    /// each change goes to one of them, in the order they began waiting. A task cancelled while it
    /// waits gets `nil`; the others wait on.
    ///
    /// ## Topics
    ///
    /// ### Waiting for changes
    ///
    /// - ``next()``
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let buffer: ChangeBuffer<Key>

        /// Waits for the next set of changed keys.
        ///
        /// - Returns: The keys changed since the last call (merged, if several changes came in
        ///   between), or `nil` once the task is cancelled or the store is released.
        public mutating func next() async -> ChangedKeys<Key>? {
            await buffer.next()
        }
    }
}

/// Changed keys waiting for an iterator, merged while it is busy.
///
/// The iterator is `Sendable`, and its copies share this buffer: several tasks may wait in `next()`
/// at once. They are answered in the order they came, each change going to one of them, so none
/// waits forever; a task cancelled while it waits gets `nil`, and the others wait on.
///
/// The waiting keys are user values, whose `deinit` may write to the cache, which tells this buffer:
/// they leave `pending` only by `take()`, inside the lock, and are released (or handed to the
/// consumer) once it is left.
final class ChangeBuffer<Key: Hashable & SendableMetatype>: Finishing, @unchecked Sendable {
    /// A suspended `next()`; keys cross to it in a box, as `Key` need not be `Sendable`.
    typealias Waiter = CheckedContinuation<UncheckedSendable<ChangedKeys<Key>>?, Never>

    private let lock = Lock()
    private let limit: Int
    /// The keys changed since the consumer last took them; `nil` once more than `limit` did.
    private var pending: Set<Key>? = []
    /// The suspended `next()` calls, oldest first, each under the number its call was given.
    private var waiters: [(number: Int, continuation: Waiter)] = []
    private var lastWaiterNumber = 0
    private var isFinished = false
    private var subscription: Subscription?

    /// A buffer subscribed to `core`'s changes; one already finished when `core` is gone.
    init(core: (any StorageCore<Key>)?, limit: Int) {
        self.limit = limit
        guard let core else {
            isFinished = true
            return
        }
        subscription = core.subscribe(
            Subscriber(
                onChange: { [weak self] keys in self?.receive(keys) },
                onEnd: { [weak self] in self?.finish() }))
    }

    deinit { subscription?.cancel() }

    func next() async -> ChangedKeys<Key>? {
        let finisher: any Finishing = self
        let number = lock.withLock {
            lastWaiterNumber += 1
            return lastWaiterNumber
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                lock.lock()
                if pending?.isEmpty != true {
                    let taken = pending.take()
                    pending = []
                    lock.unlock()
                    continuation.resume(returning: UncheckedSendable(taken.map(ChangedKeys.init) ?? .everyKey))
                } else if isFinished || Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiters.append((number, continuation))
                    lock.unlock()
                }
            }
        } onCancel: {
            finisher.cancelWaiter(number)
        }?.value
    }

    private func receive(_ keys: Set<Key>) {
        lock.lock()
        guard !waiters.isEmpty else {
            let dropped = merge(keys)
            lock.unlock()
            withExtendedLifetime(dropped) {}  // the keys are released here, unlocked
            return
        }
        let waiter = waiters.removeFirst().continuation
        lock.unlock()
        waiter.resume(returning: UncheckedSendable(keys.count > limit ? .everyKey : ChangedKeys(keys)))
    }

    /// Adds `keys` to the pending ones, which become "every key" past `limit`. Under the lock.
    ///
    /// - Returns: The keys no longer kept, for the caller to release once the lock is left.
    private func merge(_ keys: Set<Key>) -> Set<Key>? {
        guard var merged = pending.take() else { return nil }  // already every key
        merged.formUnion(keys)
        guard merged.count <= limit else { return merged }
        pending = merged
        return nil
    }

    /// Ends the waiting `next()` call numbered `number`, if it still waits, with `nil`.
    func cancelWaiter(_ number: Int) {
        let waiter = lock.withLock {
            waiters.firstIndex { $0.number == number }.map { waiters.remove(at: $0).continuation }
        }
        waiter?.resume(returning: nil)
    }

    func finish() {
        let waiters = lock.withLock {
            isFinished = true
            defer { self.waiters = [] }
            return self.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
    }
}

/// Something that can be ended from a cancellation handler, which must not capture generic types.
protocol Finishing: Sendable {
    /// Ends every waiting call: the store was released.
    func finish()
    /// Ends one waiting call, whose task was cancelled.
    func cancelWaiter(_ number: Int)
}
