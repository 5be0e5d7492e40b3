/// The storage engine: the values of one key space, with per-key observation and change subscribers.
///
/// One `lock` guards everything stored here, and is held only for dictionary work: observers,
/// subscribers and update closures run after it is released, and a replaced value is handed back to
/// the caller to release (see ``StorageCore``).
///
/// ## Memory
///
/// A key's slot lives while the key has a value. A read of an absent key inside
/// `withObservationTracking` leaves an empty slot (so the observer learns when the key appears);
/// empty slots are dropped, their observers told to read again, once they outnumber the keys present
/// (and at least ``emptySlotAllowance``): memory stays O(keys present + keys observed).
@usableFromInline
final class RootCore<Key: Hashable & SendableMetatype>: StorageCore, @unchecked Sendable {
    @usableFromInline typealias KeyPathForKey = KeyObservation<Key>.KeyPathForKey

    /// A key's entry: its value, and its observation key path once it has been read.
    ///
    /// A key that has a key path is told of every write: an observer registers only after the read
    /// that recorded it returns, so a mark cleared by one write could miss the observer of the next.
    @usableFromInline
    struct Slot {
        /// `nil` for an empty slot: an absent key that an observer read.
        @usableFromInline var value: Any?
        @usableFromInline var keyPath: KeyPathForKey?

        @inlinable init(value: Any?) {
            self.value = value
        }
    }

    @usableFromInline let lock = Lock()
    @usableFromInline let observation = KeyObservation<Key>()
    /// Guarded by `lock`, as is every `var` below.
    @exclusivity(unchecked) @usableFromInline var slots: [Key: Slot]
    @exclusivity(unchecked) @usableFromInline var emptySlotCount = 0
    /// Whether every key was ever read at once (``allValues(observing:)``): then every write tells
    /// the observers of every key.
    @exclusivity(unchecked) @usableFromInline var isEveryKeyObserved = false
    @exclusivity(unchecked) @usableFromInline var subscribers: [UInt64: Subscriber<Key>] = [:]
    private var lastSubscriberID: UInt64 = 0
    /// Writes to keys that an ``update(_:_:)`` is changing now, to detect a conflicting writer.
    @exclusivity(unchecked) @usableFromInline var updates: [Key: UpdateWatch] = [:]

    /// Empty slots kept before a purge, however few keys are present.
    @usableFromInline static var emptySlotAllowance: Int { 1_024 }

    @inlinable
    init(values: [Key: Any]) {
        slots = values.mapValues(Slot.init(value:))
    }

    deinit {
        for subscriber in subscribers.values { subscriber.onEnd() }
    }

    // MARK: Reading

    @inlinable
    func value(for key: Key, observing: Bool) -> Any? {
        guard observing else {
            lock.lock()
            defer { lock.unlock() }
            return slots[key]?.value
        }
        lock.lock()
        let value = readObservingLocked(key)
        let needsPurge = emptySlotCount > Swift.max(Self.emptySlotAllowance, slots.count - emptySlotCount)
        lock.unlock()
        if needsPurge { purgeEmptySlots() }
        return value
    }

    /// Reads `key` and records the read for observation; an absent key gets an empty slot.
    @inlinable
    func readObservingLocked(_ key: Key) -> Any? {
        var isNewSlot = false
        let value = Self.observe(
            &slots[key, default: Slot(value: nil)], of: key, in: observation, isNewSlot: &isNewSlot)
        if isNewSlot { emptySlotCount += 1 }
        return value
    }

    /// Marks `slot` observed, records the access, and returns its value; says whether it was just made.
    @inlinable
    static func observe(
        _ slot: inout Slot, of key: Key, in observation: KeyObservation<Key>, isNewSlot: inout Bool
    ) -> Any? {
        if slot.keyPath == nil {
            isNewSlot = slot.value == nil
            slot.keyPath = observation.keyPath(for: key)
        }
        observation.access(slot.keyPath.unsafelyUnwrapped)
        return slot.value
    }

    /// Drops every empty slot; their observers are told, so that they read (and register) again.
    @usableFromInline
    func purgeEmptySlots() {
        var publication = Publication<Key>()
        lock.lock()
        for (_, slot) in slots where slot.value == nil {
            publication.noteKeyPath(slot.keyPath.unsafelyUnwrapped)
        }
        var dropped = slots.filter { $0.value.value != nil }
        swap(&dropped, &slots)
        emptySlotCount = 0
        lock.unlock()
        publish(publication)
        withExtendedLifetime(dropped) {}  // the dropped keys are released here, unlocked
    }

    @usableFromInline
    func allValues(observing: Bool) -> [Key: Any] {
        lock.lock()
        defer { lock.unlock() }
        if observing {
            isEveryKeyObserved = true
            observation.access(observation.everyKeyPath)
        }
        return slots.compactMapValues(\.value)
    }

    // MARK: Writing

    @inlinable
    func write(_ value: Any?, for key: Key) -> Any? {
        var publication = Publication<Key>()
        lock.lock()
        let previous = writeLocked(value, for: key, into: &publication)
        lock.unlock()
        if !publication.isEmpty { publish(publication) }
        return previous
    }

    @inlinable
    func writeAll(_ keys: [Key], _ values: inout [Any?]) {
        var publication = Publication<Key>()
        lock.lock()
        for index in keys.indices {
            var value: Any?
            swap(&value, &values[index])
            values[index] = writeLocked(consume value, for: keys[index], into: &publication)
        }
        lock.unlock()
        if !publication.isEmpty { publish(publication) }
    }

    /// Sets (or, for `nil`, removes) `key`, noting in `publication` whom to tell.
    ///
    /// - Returns: The value replaced, for the caller to release once the lock is released.
    @inlinable
    func writeLocked(_ value: consuming Any?, for key: Key, into publication: inout Publication<Key>) -> Any? {
        let previous: Any?
        if let value = consume value {
            var wasEmptySlot = false
            var observedKeyPath: KeyPathForKey?
            previous = Self.store(
                value, in: &slots[key, default: Slot(value: nil)], wasEmptySlot: &wasEmptySlot,
                observedKeyPath: &observedKeyPath)
            if wasEmptySlot { emptySlotCount -= 1 }
            if let observedKeyPath { publication.noteKeyPath(observedKeyPath) }
        } else {
            guard let index = slots.index(forKey: key), slots.values[index].value != nil else { return nil }
            let removed = slots.remove(at: index)
            previous = removed.value.value
            if let keyPath = removed.value.keyPath { publication.noteKeyPath(keyPath) }
            publication.noteReleased(removed.key)
        }
        if isEveryKeyObserved { publication.noteEveryKey() }
        if !subscribers.isEmpty { publication.note(key, subscribers: subscribers) }
        if !updates.isEmpty { updates[key]?.recordWrite() }
        return previous
    }

    /// Puts `value` in `slot` and returns what it had; says whether it was an empty slot, and the key
    /// path to publish when it was observed.
    @inlinable
    static func store(
        _ value: consuming Any, in slot: inout Slot, wasEmptySlot: inout Bool, observedKeyPath: inout KeyPathForKey?
    ) -> Any? {
        var previous: Any? = consume value
        swap(&previous, &slot.value)
        wasEmptySlot = previous == nil && slot.keyPath != nil
        observedKeyPath = slot.keyPath
        return previous
    }

    @usableFromInline
    func update(_ key: Key, _ body: (inout Any?) -> Void) {
        while true {
            lock.lock()
            var value = slots[key]?.value
            let start = updates[key, default: UpdateWatch()].begin()
            lock.unlock()
            body(&value)
            var publication = Publication<Key>()
            lock.lock()
            let isConflict = updates[key]?.end(since: start) ?? false
            if updates[key]?.isIdle == true { updates[key] = nil }
            if isConflict {
                lock.unlock()
                continue  // another thread wrote `key` meanwhile: run `body` again on its value
            }
            let previous = writeLocked(value, for: key, into: &publication)
            lock.unlock()
            if !publication.isEmpty { publish(publication) }
            withExtendedLifetime(previous) {}
            return
        }
    }

    // MARK: Publishing

    /// Tells observers and subscribers what changed. Called with no lock held.
    @usableFromInline
    func publish(_ publication: Publication<Key>) {
        guard let notes = publication.notes else { return }
        for keyPath in notes.keyPaths { observation.notify(keyPath) }
        if notes.everyKey { observation.notify(observation.everyKeyPath) }
        guard !notes.listeners.isEmpty else { return }
        let changed = Set(notes.keys)
        for listener in notes.listeners { listener.onChange(changed) }
    }

    @usableFromInline
    func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        let id = lock.withLock {
            lastSubscriberID += 1
            subscribers[lastSubscriberID] = subscriber
            return lastSubscriberID
        }
        return Subscription { [weak self] in
            guard let self else { return }
            let removed = lock.withLock { self.subscribers.removeValue(forKey: id) }
            withExtendedLifetime(removed) {}
        }
    }
}

/// Whom to tell of the writes made under a ``RootCore``'s lock, once it is released.
///
/// Most writes have no one to tell, so the lists are allocated only for the first one to note:
/// an empty publication is one `nil` reference.
@usableFromInline
struct Publication<Key: Hashable & SendableMetatype> {
    @usableFromInline
    final class Notes {
        @usableFromInline var keyPaths: [KeyObservation<Key>.KeyPathForKey] = []
        @usableFromInline var everyKey = false
        @usableFromInline var keys: [Key] = []
        @usableFromInline var listeners: [Subscriber<Key>] = []
        /// Keys a removal took out of the dictionary: released with the publication, unlocked.
        @usableFromInline var releasedKeys: [Key] = []

        @usableFromInline init() {}
    }

    @usableFromInline var notes: Notes?

    @inlinable init() {}

    @inlinable var isEmpty: Bool {
        notes == nil
    }

    @inlinable
    mutating func noteKeyPath(_ keyPath: KeyObservation<Key>.KeyPathForKey) {
        writableNotes().keyPaths.append(keyPath)
    }

    @inlinable
    mutating func noteReleased(_ key: Key) {
        writableNotes().releasedKeys.append(key)
    }

    @inlinable
    mutating func noteEveryKey() {
        writableNotes().everyKey = true
    }

    @inlinable
    mutating func note(_ key: Key, subscribers: [UInt64: Subscriber<Key>]) {
        let notes = writableNotes()
        if notes.keys.isEmpty { notes.listeners = Array(subscribers.values) }
        notes.keys.append(key)
    }

    @usableFromInline
    mutating func writableNotes() -> Notes {
        if let notes { return notes }
        let notes = Notes()
        self.notes = notes
        return notes
    }
}

/// The writes to one key while ``RootCore/update(_:_:)`` calls run on it, to tell each update
/// whether *another* thread wrote the key meanwhile: its closure's own writes are not a conflict.
@usableFromInline
struct UpdateWatch: Sendable {
    /// Where one update started: the key's write count, and its thread's own.
    @usableFromInline
    struct Start: Sendable {
        @usableFromInline let writes: UInt64
        @usableFromInline let ownWrites: UInt64
    }

    @usableFromInline var writes: UInt64 = 0
    /// Each thread updating the key now: how many updates it runs, and how many writes it made.
    @usableFromInline var updaters: [(thread: ThreadID, depth: Int, writes: UInt64)] = []

    @usableFromInline init() {}

    @usableFromInline var isIdle: Bool { updaters.isEmpty }

    /// Starts watching for an update on the calling thread.
    @usableFromInline
    mutating func begin() -> Start {
        let me = ThreadID.current
        guard let index = updaters.firstIndex(where: { $0.thread == me }) else {
            updaters.append((me, 1, 0))
            return Start(writes: writes, ownWrites: 0)
        }
        updaters[index].depth += 1
        return Start(writes: writes, ownWrites: updaters[index].writes)
    }

    @usableFromInline
    mutating func recordWrite() {
        writes &+= 1
        let me = ThreadID.current
        if let index = updaters.firstIndex(where: { $0.thread == me }) { updaters[index].writes &+= 1 }
    }

    /// Stops watching the calling thread's update; returns whether another thread wrote since `start`.
    @usableFromInline
    mutating func end(since start: Start) -> Bool {
        let me = ThreadID.current
        guard let index = updaters.firstIndex(where: { $0.thread == me }) else { return writes != start.writes }
        let ownWrites = updaters[index].writes &- start.ownWrites
        updaters[index].depth -= 1
        if updaters[index].depth == 0 { updaters.remove(at: index) }
        return writes &- start.writes != ownWrites
    }
}

/// A slot lives in its core's dictionary, under its lock: it never crosses threads.
@available(*, unavailable)
extension RootCore.Slot: Sendable {}

/// A publication is made under a core's lock and published by the same thread.
@available(*, unavailable)
extension Publication: Sendable {}

@available(*, unavailable)
extension Publication.Notes: Sendable {}
