/// One key space of a storage tree: what a ``CacheStore`` reads and writes through.
///
/// Three final classes implement it:
/// - ``RootCore`` owns values: a cache's own, or a scope's keys that map to no parent key.
/// - ``ScopedCore`` maps a scope's keys onto its parent's core, plus a ``RootCore`` of its own keys.
/// - ``TransactionCore`` holds one action's writes apart until the action's handler returns.
///
/// ## Engine rules
///
/// - Each core guards its own state with its own lock (a ``RootCore``'s `lock`); a transaction
///   belongs to one action and needs none. No method holds a lock while it calls user code
///   (observers, subscribers, a transformation, an update's closure) or while a user value is
///   released: a value that was replaced is *returned* to the caller, who drops it with no lock held.
/// - A write tells observers after its lock is released, so an observer may read or write the store.
@usableFromInline
protocol StorageCore<Key>: AnyObject, Sendable {
    associatedtype Key: Hashable & SendableMetatype

    /// The value of `key`; with `observing`, the read is recorded for `withObservationTracking`.
    func value(for key: Key, observing: Bool) -> Any?

    /// The value of `key`, the read recorded for `withObservationTracking` on `subject`, a scope's
    /// subject of the key that the key's slot lists (see ``LinkedKeyObservation``). When `subject` is
    /// `nil`, or not linked to the key, the core storing the key links a new one and returns it in
    /// `subject`; a core that cannot link one leaves `subject` as it is.
    func value(for key: Key, observingThrough subject: inout KeyObservation?) -> Any?

    /// Takes `subject`, which ``value(for:observingThrough:)`` linked, out of the slot it is linked
    /// into. Called once, by the scope that owns the subject, when it is released.
    func unlink(_ subject: KeyObservation)

    /// Whether `subject`, a scope's subject linked through this core, is linked into its key's slot
    /// now (see ``KeyObservation/isLinked``).
    func isLinked(_ subject: KeyObservation) -> Bool

    /// Sets (or, for `nil`, removes) the value of `key`, then tells its observers.
    ///
    /// `value` is consumed, here and in ``CoreAccess/write``: each core moves it into its storage, and
    /// no caller keeps a copy to destroy.
    ///
    /// - Returns: The value it replaced, which the caller releases.
    func write(_ value: consuming Any?, for key: Key) -> Any?

    /// Applies every write at once (no reader sees part of them), then tells observers.
    ///
    /// - Parameters:
    ///   - keys: The keys to write, each once.
    ///   - values: The value for each key (`nil`: remove). On return each holds the value its key had
    ///     instead, so the caller releases those after every lock is released.
    func writeAll(_ keys: [Key], _ values: inout [Any?])

    /// Reads, changes and writes back the value of `key`, atomically with respect to other writers.
    ///
    /// `body` runs with no lock held, so it may read the store. When another writer changes `key`
    /// while `body` runs, `body` runs again on the new value.
    func update(_ key: Key, _ body: (inout Any?) -> Void)

    /// Every key that has a value, with its value; with `observing`, an observer of the result is
    /// told of any later write, insert or removal.
    func allValues(observing: Bool) -> [Key: Any]

    /// Registers `subscriber` to be told which keys change, after each change.
    func subscribe(_ subscriber: Subscriber<Key>) -> Subscription

    /// Notes that a scope was made over this core, so it may be used after the current action.
    func noteScoped()
}

extension StorageCore {
    @usableFromInline func noteScoped() {}

    /// A plain observed read, recorded on the key's own subject: for cores that no scope observes
    /// for long (a lifted handler's state).
    @usableFromInline func value(for key: Key, observingThrough subject: inout KeyObservation?) -> Any? {
        value(for: key, observing: true)
    }

    @usableFromInline func unlink(_ subject: KeyObservation) {}

    @usableFromInline func isLinked(_ subject: KeyObservation) -> Bool { false }
}

/// A core, with its hot operations as functions made where the client's key type is known.
///
/// Calls through `any StorageCore` can run the library's generic code, where every dictionary
/// operation hashes and compares keys through witness tables. These functions are made by the
/// `@inlinable` ``init(_:)``, so each calls the concrete core's methods specialized for the client's
/// types. Each function captures the core it runs on.
@usableFromInline
struct CoreAccess<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    // The fields a read uses, together: a scope's observed read of its parent uses `readThroughFunction`
    // and `core` (the fields of a ``ScopedCore`` that such a read uses come just before its
    // `parentAccess`), a store's read `core` and `readFunction`.

    @usableFromInline let readThroughFunction: (Key, _ subject: inout KeyObservation?) -> Any?
    /// The core the functions run on.
    @usableFromInline let core: any StorageCore<Key>
    @usableFromInline let readFunction: (Key, _ observing: Bool) -> Any?
    @usableFromInline let unlinkFunction: (KeyObservation) -> Void
    @usableFromInline let writeFunction: (Key, consuming Any?) -> Any?
    @usableFromInline let writeAllFunction: ([Key], inout [Any?]) -> Void

    @inlinable
    init<Core: StorageCore>(_ core: Core) where Core.Key == Key {
        self.core = core
        readFunction = { key, observing in core.value(for: key, observing: observing) }
        readThroughFunction = { key, subject in core.value(for: key, observingThrough: &subject) }
        unlinkFunction = { subject in core.unlink(subject) }
        writeFunction = { key, value in core.write(consume value, for: key) }
        writeAllFunction = { keys, values in core.writeAll(keys, &values) }
    }

    /// ``StorageCore/value(for:observing:)``.
    @inlinable
    func read(_ key: Key, _ observing: Bool) -> Any? {
        readFunction(key, observing)
    }

    /// ``StorageCore/value(for:observingThrough:)``.
    @inlinable
    func readThrough(_ key: Key, _ subject: inout KeyObservation?) -> Any? {
        readThroughFunction(key, &subject)
    }

    /// ``StorageCore/unlink(_:)``.
    @inlinable
    func unlink(_ subject: KeyObservation) {
        unlinkFunction(subject)
    }

    /// ``StorageCore/write(_:for:)``.
    @inlinable
    func write(_ key: Key, _ value: consuming Any?) -> Any? {
        writeFunction(key, consume value)
    }

    /// ``StorageCore/writeAll(_:_:)``.
    @inlinable
    func writeAll(_ keys: [Key], _ values: inout [Any?]) {
        writeAllFunction(keys, &values)
    }
}
