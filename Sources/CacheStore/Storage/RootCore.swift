import CacheStoreAtomics
import Dispatch

/// The storage engine: the values of one key space, with per-key observation and change subscribers.
///
/// One `lock` guards everything stored here, and is held only for dictionary work: observers,
/// subscribers and update closures run after it is released, and a replaced value is handed back to
/// the caller to release (see ``StorageCore``).
///
/// ## Memory
///
/// A key's slot lives while the key has a value, or a scope's subject is linked into it. A read of an
/// absent key inside `withObservationTracking` leaves an empty slot (so the observer learns when the
/// key appears); empty slots are dropped, their observers told to read again, once they outnumber the
/// keys present (and at least ``emptySlotAllowance``): memory stays O(keys present + keys observed).
///
/// A read through a scope is recorded on the scope's own subject of the key
/// (``LinkedKeyObservation``), which the key's slot lists until the scope is released or the slot,
/// emptied, is dropped: an observer of a scope goes with the scope, where on the key's own subject
/// it stayed until the key changed. Empty slots with scopes' subjects are dropped like any other
/// (their subjects told, and unlinked), so a long-lived scope that observed keys since removed keeps
/// nothing of them here, and forgets their subjects itself (see ``ScopeSubjects``).
@usableFromInline
final class RootCore<Key: Hashable & SendableMetatype>: StorageCore, @unchecked Sendable {
    /// A key's entry: its value, and the subjects told of its writes.
    ///
    /// A key that has a subject is told of every write: an observer registers only after the read
    /// that recorded it returns, so a mark cleared by one write could miss the observer of the next.
    ///
    /// An existential and one reference: the subjects are one list, so a slot holds one reference
    /// whoever observes its key, and a stored key costs one word more than a raw `[Key: Any]` entry.
    @usableFromInline
    struct Slot {
        /// `nil` for an empty slot: an absent key that an observer read, or that a scope's subject is
        /// linked to.
        @usableFromInline var value: Any?
        /// The first of the subjects of this key, each listing the next (``KeyObservation/next``): the
        /// key's own subject, the one reads of the key itself record, first once it is made (its
        /// ``KeyObservation/host`` is `nil`), then the subjects of the scopes that read the key
        /// (``LinkedKeyObservation``).
        @usableFromInline var subjects: KeyObservation?

        @inlinable init(value: Any?) {
            self.value = value
        }

        /// Whether a scope's subject is listed: the slot then stays, empty, when its key is removed.
        @inlinable var hasLinkedSubjects: Bool {
            guard let first = subjects else { return false }
            return first.host != nil || first.next != nil
        }
    }

    @usableFromInline let lock = Lock()
    /// ``KeyObservation/sharedKeyPath``, which every access and notification of a subject passes: held
    /// here, in the core a read or write has at hand, not in each subject (which stays small, see
    /// ``KeyObservation``), and not read from the `static let` (which asks `swift_once` each time).
    @usableFromInline let subjectKeyPath: KeyPath<KeyObservation, Void>
    /// Guarded by `lock`, as is every `var` below.
    @exclusivity(unchecked) @usableFromInline var slots: [Key: Slot]
    @exclusivity(unchecked) @usableFromInline var emptySlotCount = 0
    /// Empty slots kept before a purge: ``emptySlotAllowance``, or twice the empty slots the last
    /// purge kept (those that scopes' subjects are linked to), so that purges stay amortized O(1).
    @exclusivity(unchecked) @usableFromInline var emptySlotLimit: Int
    /// The subject of reads of every key at once (``allValues(observing:)``), made on the first: from
    /// then on, every write, insert or removal tells its observers. (Made lazily, as most key spaces,
    /// a row's scope among them, are never read whole: two allocations fewer.)
    @exclusivity(unchecked) @usableFromInline var everyKeyObservation: KeyObservation?
    @exclusivity(unchecked) @usableFromInline var subscribers: [UInt64: Subscriber<Key>] = [:]
    private var lastSubscriberID: UInt64 = 0
    /// Writes to keys that an ``update(_:_:)`` is changing now, to detect a conflicting writer.
    @exclusivity(unchecked) @usableFromInline var updates: [Key: UpdateWatch] = [:]
    /// For a store made with a ``Persistence``: which persisted keys were written since the last save.
    @exclusivity(unchecked) @usableFromInline var persistedWrites: PersistedWrites<Key>?

    /// Empty slots kept before a purge, however few keys are present.
    @usableFromInline static var emptySlotAllowance: Int { 1_024 }

    @inlinable
    init(values: [Key: Any]) {
        slots = values.isEmpty ? [:] : values.mapValues(Slot.init(value:))
        emptySlotLimit = Self.emptySlotAllowance
        subjectKeyPath = KeyObservation.sharedKeyPath
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
        let needsPurge = needsPurge
        lock.unlock()
        if needsPurge { purgeEmptySlots() }
        return value
    }

    /// The value of `key`, the read recorded on `subject`: a scope's subject of the key, linked into
    /// the key's slot so that every write of the key notifies it. When `subject` is `nil`, or is not
    /// this core's subject of `key` (a transformation that now maps elsewhere), a new one is made,
    /// linked and returned in `subject`.
    @inlinable
    func value(for key: Key, observingThrough subject: inout KeyObservation?) -> Any? {
        lock.lock()
        var isNewSlot = false
        let value = Self.observe(
            &slots[key, default: Slot(value: nil)], key: key, through: &subject, core: self, isNewSlot: &isNewSlot)
        if isNewSlot { emptySlotCount += 1 }
        let needsPurge = needsPurge
        lock.unlock()
        if needsPurge { purgeEmptySlots() }
        return value
    }

    /// Records the access on `subject`, linking a new one into `slot` unless `subject` is already this
    /// core's subject of `key`; returns the slot's value, and says whether the slot was just made.
    @inlinable
    static func observe(
        _ slot: inout Slot, key: Key, through subject: inout KeyObservation?, core: RootCore, isNewSlot: inout Bool
    ) -> Any? {
        // The subject first in the slot's list (a row's, when only its scope reads the key) is known
        // by its identity alone: its `host` and `key`, in its second half, are then not read.
        let isOurs =
            subject.map { given in
                given === slot.subjects
                    || (given.host == Unmanaged.passUnretained(core).toOpaque()
                        && unsafeDowncast(given, to: LinkedKeyObservation<Key>.self).key == key)
            } ?? false
        if !isOurs || !subject.unsafelyUnwrapped.isLinked {
            // A new subject, or the scope's own, unlinked when its slot was dropped, linked again.
            isNewSlot = slot.subjects == nil && slot.value == nil
            let linked = isOurs ? subject.unsafelyUnwrapped : LinkedKeyObservation(core: core, key: key)
            if let own = slot.subjects, own.host == nil {
                insert(linked, after: own)
            } else {
                linked.next = slot.subjects
                slot.subjects?.previous = linked
                slot.subjects = linked
            }
            linked.isLinked = true
            subject = linked
        }
        let keyPath = core.subjectKeyPath
        subject.unsafelyUnwrapped.access(keyPath: keyPath)
        return copyInPlace(&slot.value)
    }

    /// Takes `subject`, a scope's subject linked here, out of the slot it is linked into; drops the
    /// slot when nothing else keeps it. Called by the scope when it is released.
    @usableFromInline
    func unlink(_ observation: KeyObservation) {
        let subject = unsafeDowncast(observation, to: LinkedKeyObservation<Key>.self)
        lock.lock()
        var dropped: (key: Key, value: Slot)?
        if subject.isLinked, let index = slots.index(forKey: subject.key),
            Self.unlink(subject, from: &slots.values[index])
        {
            dropped = slots.remove(at: index)
            emptySlotCount -= 1
        }
        lock.unlock()
        withExtendedLifetime(dropped) {}  // the key is released here, unlocked
    }

    /// Takes `subject` out of `slot`'s subjects; returns whether the slot is empty now.
    ///
    /// The slot is changed in place, never copied.
    @inlinable
    static func unlink(_ subject: KeyObservation, from slot: inout Slot) -> Bool {
        remove(subject, from: &slot.subjects)
        return slot.subjects == nil && slot.value == nil
    }

    /// Lists `subject` right after `previous`.
    @inlinable
    static func insert(_ subject: KeyObservation, after previous: KeyObservation) {
        subject.next = previous.next
        subject.previous = previous
        previous.next?.previous = subject
        previous.next = subject
    }

    /// Takes `subject` out of the subjects that start at `first`.
    @inlinable
    static func remove(_ subject: KeyObservation, from first: inout KeyObservation?) {
        if let previous = subject.previous {
            previous.next = subject.next
        } else if first === subject {
            first = subject.next
        } else {
            return  // not linked here
        }
        subject.next?.previous = subject.previous
        subject.previous = nil
        subject.next = nil
        subject.isLinked = false
    }

    /// Whether `subject`, a scope's subject of this core, is linked into its key's slot now.
    @usableFromInline
    func isLinked(_ subject: KeyObservation) -> Bool {
        lock.withLock { subject.isLinked }
    }

    /// Whether the empty slots outnumber the keys present and the limit. Under the lock.
    @inlinable
    var needsPurge: Bool {
        emptySlotCount > Swift.max(emptySlotLimit, slots.count - emptySlotCount)
    }

    /// Reads `key` and records the read for observation; an absent key gets an empty slot.
    @inlinable
    func readObservingLocked(_ key: Key) -> Any? {
        var isNewSlot = false
        let value = Self.observe(&slots[key, default: Slot(value: nil)], keyPath: subjectKeyPath, isNewSlot: &isNewSlot)
        if isNewSlot { emptySlotCount += 1 }
        return value
    }

    /// Marks `slot` observed, records the access, and returns its value; says whether it was just made.
    @inlinable
    static func observe(_ slot: inout Slot, keyPath: KeyPath<KeyObservation, Void>, isNewSlot: inout Bool) -> Any? {
        if slot.subjects == nil || slot.subjects.unsafelyUnwrapped.host != nil {
            // The key's own subject is made on its first observed read, and listed first.
            isNewSlot = slot.value == nil && slot.subjects == nil
            slot.subjects = KeyObservation(before: slot.subjects)
        }
        slot.subjects.unsafelyUnwrapped.access(keyPath: keyPath)
        return copyInPlace(&slot.value)
    }

    /// Drops every empty slot; their subjects (the key's own and scopes') are told, so that their
    /// observers read (and register) again, and unlinked: a scope reading the key again links its
    /// subject anew.
    @usableFromInline
    func purgeEmptySlots() {
        var publication = Publication<Key>()
        lock.lock()
        for (_, slot) in slots where slot.value == nil {
            var next = slot.subjects
            publication.noteSubjects(slot.subjects.unsafelyUnwrapped)
            while let subject = next {
                next = subject.next
                subject.previous = nil
                subject.next = nil
                subject.isLinked = false
            }
        }
        var dropped = slots.filter { $0.value.value != nil }
        swap(&dropped, &slots)
        emptySlotCount = 0
        emptySlotLimit = Self.emptySlotAllowance
        lock.unlock()
        publish(publication)
        withExtendedLifetime(dropped) {}  // the dropped keys and subjects are released here, unlocked
    }

    @usableFromInline
    func allValues(observing: Bool) -> [Key: Any] {
        lock.lock()
        defer { lock.unlock() }
        if observing {
            if everyKeyObservation == nil { everyKeyObservation = KeyObservation() }
            everyKeyObservation.unsafelyUnwrapped.access(keyPath: subjectKeyPath)
        }
        return slots.compactMapValues(\.value)
    }

    // MARK: Writing

    @inlinable
    func write(_ value: consuming Any?, for key: Key) -> Any? {
        var publication = Publication<Key>()
        lock.lock()
        let previous = writeLocked(consume value, for: key, into: &publication)
        lock.unlock()
        if !publication.isEmpty { publishChanges(publication) }
        return previous
    }

    @inlinable
    func writeAll(_ keys: [Key], _ values: inout [Any?]) {
        var publication = Publication<Key>()
        lock.lock()
        // Each value is moved out and its replaced value moved in: no copy, and no `Any?` assignment
        // through the runtime's value witnesses.
        values.withUnsafeMutableBufferPointer { buffer in
            let start = buffer.baseAddress.unsafelyUnwrapped
            for index in keys.indices {
                let slot = start + index
                slot.initialize(to: writeLocked(slot.move(), for: keys[index], into: &publication))
            }
        }
        lock.unlock()
        if !publication.isEmpty { publishChanges(publication) }
    }

    /// Sets (or, for `nil`, removes) `key`, noting in `publication` whom to tell.
    ///
    /// - Returns: The value replaced, for the caller to release once the lock is released.
    @inlinable
    func writeLocked(_ value: consuming Any?, for key: Key, into publication: inout Publication<Key>) -> Any? {
        if persistedWrites != nil { notePersistedWrite(of: key) }
        let previous: Any?
        // Tested, not unwrapped: `if let` would copy the value and destroy the copy.
        if value != nil {
            if let index = slots.index(forKey: key) {
                var wasEmptySlot = false
                var isReplacement = false
                previous = Self.store(
                    consume value, in: &slots.values[index], wasEmptySlot: &wasEmptySlot,
                    isReplacement: &isReplacement, into: &publication,
                    othersToTell: everyKeyObservation != nil || !subscribers.isEmpty)
                if wasEmptySlot { emptySlotCount -= 1 }
                if isReplacement {
                    noteReplacement(of: key, at: index, previous: previous.unsafelyUnwrapped, into: &publication)
                    return previous
                }
            } else {
                slots[key] = Slot(value: consume value)  // a new key: no one observes it yet
                previous = nil
            }
        } else {
            guard let index = slots.index(forKey: key), slots.values[index].value != nil else { return nil }
            if slots.values[index].hasLinkedSubjects {
                // Scopes' subjects are linked to the key: the slot stays, empty, until they are unlinked.
                previous = slots.values[index].value.take()
                emptySlotCount += 1
                publication.noteSubjects(slots.values[index].subjects.unsafelyUnwrapped)
            } else {
                let removed = slots.remove(at: index)
                previous = removed.value.value
                if let own = removed.value.subjects { publication.noteObservation(own) }
                publication.noteReleased(removed.key)
            }
        }
        if let everyKeyObservation { publication.noteEveryKey(everyKeyObservation) }
        if !subscribers.isEmpty { publication.note(key, subscribers: subscribers) }
        if !updates.isEmpty { updates[key]?.recordWrite() }
        return previous
    }

    /// Marks `key`, if persisted, for the next save, and schedules the save if none is. Under the lock.
    @inlinable
    func notePersistedWrite(of key: Key) {
        if persistedWrites!.noteWrite(of: key) { persistedWrites!.scheduleSave() }
    }

    /// Runs `handle` (an update's action, in the store's turn) with the writes of `key` unmarked, and
    /// returns whether it wrote `key`, and the value `key` holds then.
    func withWritesUnmarked(of key: Key, _ handle: () -> Void) -> (isWritten: Bool, value: Any?, takes: Int) {
        lock.withLock {
            persistedWrites?.keyOfUpdate = key
            persistedWrites?.isKeyOfUpdateWritten = false
        }
        handle()
        return lock.withLock {
            persistedWrites?.keyOfUpdate = nil
            return (
                persistedWrites?.isKeyOfUpdateWritten ?? false, slots[key]?.value, persistedWrites?.takes[key] ?? 0
            )
        }
    }

    /// How many saves took `key` so far.
    func persistedTakes(of key: Key) -> Int {
        lock.withLock { persistedWrites?.takes[key] ?? 0 }
    }

    /// Marks `key` for the next save and schedules it: a write of the key the persister learned of
    /// after it was made.
    func notePersistedWriteNow(of key: Key) {
        lock.withLock { notePersistedWrite(of: key) }
    }

    /// Marks `key` for the next save without scheduling one: a save that failed, to try again.
    func markPersistedWrite(of key: Key) {
        lock.withLock {
            guard let index = persistedWrites?.isWritten.index(forKey: key) else { return }
            persistedWrites!.isWritten.values[index] = true
        }
    }

    /// The persisted keys written since the last save, with their values now (`nil` for a removed
    /// key), unmarked: what the save in hand writes.
    func takePersistedWrites() -> [(key: Key, value: Any?)] {
        lock.withLock {
            guard persistedWrites != nil else { return [] }
            persistedWrites!.isSaveScheduled = false
            var taken: [(key: Key, value: Any?)] = []
            for index in persistedWrites!.isWritten.indices where persistedWrites!.isWritten.values[index] {
                persistedWrites!.isWritten.values[index] = false
                let key = persistedWrites!.isWritten.keys[index]
                persistedWrites!.takes[key, default: 0] += 1
                taken.append((key, slots[key]?.value))
            }
            return taken
        }
    }

    /// Puts `value` in `slot` and returns what it had; says whether it was an empty slot, and
    /// whether it replaced a value someone is to be told of (see ``noteReplacement(of:at:previous:into:)``).
    ///
    /// An unobserved slot returns at once. Of an observed one (its own subjects, or `othersToTell`: a
    /// subject of every key, or a subscriber) that was empty, it notes the subjects in `publication`.
    @inlinable
    static func store(
        _ value: consuming Any?, in slot: inout Slot, wasEmptySlot: inout Bool, isReplacement: inout Bool,
        into publication: inout Publication<Key>, othersToTell: Bool
    ) -> Any? {
        var replaced = consume value
        swap(&replaced, &slot.value)
        guard othersToTell || slot.subjects != nil else { return replaced }
        // Tested as a `let`, borrowed: a `var` would be copied for the test.
        let previous = consume replaced
        if previous != nil {
            isReplacement = true
        } else {
            wasEmptySlot = true
            if let first = slot.subjects { publication.noteSubjects(first) }
        }
        return previous
    }

    /// Notes in `publication` whom to tell that observed `key`'s value `previous` was replaced by the
    /// one it has now, if the two differ: an equal value written over the stored one changes nothing
    /// an observer could see. Under the lock: what ``WriteComparison`` cannot decide without the
    /// values' `==` is noted with both values, compared once the lock is left.
    @usableFromInline
    func noteReplacement(
        of key: Key, at index: Dictionary<Key, Slot>.Index, previous: Any, into publication: inout Publication<Key>
    ) {
        if !updates.isEmpty { updates[key]?.recordWrite() }
        let (value, subjects) = Self.contents(of: &slots.values[index])
        switch WriteComparison(previous, value) {
        case .unchanged:
            return
        case .changed:
            noteTelling(of: key, subjects: subjects, into: &publication)
        case .undecided:
            var telling = Publication<Key>()
            noteTelling(of: key, subjects: subjects, into: &telling)
            let replacement = Publication<Key>.Replacement(previous: previous, value: value, telling: telling)
            publication.noteReplacement(replacement)
        }
    }

    /// The value of `slot`, which has one, and its first subject; read in place, not from a copy.
    @inlinable
    static func contents(of slot: inout Slot) -> (value: Any, subjects: KeyObservation?) {
        (slot.value.unsafelyUnwrapped, slot.subjects)
    }

    /// Notes in `publication` whom a change of `key` tells: its `subjects`, a subject of every key,
    /// and the subscribers.
    @usableFromInline
    func noteTelling(of key: Key, subjects: KeyObservation?, into publication: inout Publication<Key>) {
        if let subjects { publication.noteSubjects(subjects) }
        if let everyKeyObservation { publication.noteEveryKey(everyKeyObservation) }
        if !subscribers.isEmpty { publication.note(key, subscribers: subscribers) }
    }

    /// Runs `body` on the value of `key` and writes what it leaves, atomically: when another thread
    /// wrote the key while `body` ran, `body` runs again on the new value. No lock is held while
    /// `body` runs.
    ///
    /// Progress: once an update has lost to another thread twice, it takes the key's update turn,
    /// and the key's updaters then take turns, first come first served (see ``UpdateWatch``), so
    /// updaters of one key never livelock. A thread that holds a turn already (of a store, or of
    /// another key's updates) never waits for one: it runs optimistically.
    @usableFromInline
    func update(_ key: Key, _ body: (inout Any?) -> Void) {
        let me = ThreadID.current
        var conflicts = 0
        var holdsTurn = false
        while true {
            lock.lock()
            let claims = conflicts >= 2 && !holdsTurn
            switch updates[key, default: UpdateWatch()].requestTurn(for: me, claiming: claims, mayWait: !holdsTurn) {
            case .proceed:
                break
            case .granted:
                holdsTurn = true
                cachestore_turn_taken()
            case .wait(let waiter):
                lock.unlock()
                waiter.wait()  // until the turn is handed to this thread
                holdsTurn = true
                cachestore_turn_taken()
                continue
            }
            var value = slots[key]?.value
            let start = updates[key, default: UpdateWatch()].begin()
            lock.unlock()
            body(&value)
            var publication = Publication<Key>()
            lock.lock()
            let isConflict = updates[key]?.end(since: start) ?? false
            if isConflict {
                conflicts += 1
                lock.unlock()
                continue  // another thread wrote `key` meanwhile: run `body` again on its value
            }
            let previous = writeLocked(value, for: key, into: &publication)
            let handedTo = holdsTurn ? updates[key]?.releaseTurn() : nil
            // The watch's key is released once the lock is left: it may be another updater's key
            // instance (the first one's is the table's key), whose `deinit` may call the cache.
            var idleWatch: (key: Key, value: UpdateWatch)?
            if let index = updates.index(forKey: key), updates.values[index].isIdle {
                idleWatch = updates.remove(at: index)
            }
            lock.unlock()
            if holdsTurn { cachestore_turn_given_up() }
            handedTo?.signal()
            withExtendedLifetime(idleWatch) {}
            if !publication.isEmpty { publishChanges(publication) }
            withExtendedLifetime(previous) {}
            return
        }
    }

    // MARK: Publishing

    /// Tells observers and subscribers what changed, leaving out the replaced values that are equal
    /// to the new ones (see ``Publication/tellReplacementsThatChanged()``). Called with no lock held.
    @inlinable
    func publishChanges(_ publication: consuming Publication<Key>) {
        publication.tellReplacementsThatChanged()
        if !publication.isEmpty { publish(publication) }
    }

    /// Tells observers and subscribers what changed. Called with no lock held.
    ///
    /// Inside a ``PublicationBatch``'s writes, it is told once they are all done.
    @usableFromInline
    func publish(_ publication: Publication<Key>) {
        if let batch = PublicationBatch.current, batch.keep({ self.publish(publication) }) { return }
        publication.firstObservation?.notify(keyPath: subjectKeyPath)
        guard let notes = publication.notes else { return }
        for observation in notes.observations { observation.notify(keyPath: subjectKeyPath) }
        notes.everyKey?.notify(keyPath: subjectKeyPath)
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
/// Most writes have no one to tell, or one observed key's observers: an empty publication is two
/// `nil` references, and the lists are allocated only for more: the first observed key's subject is
/// held inline, so an observed write allocates nothing to publish.
@usableFromInline
struct Publication<Key: Hashable & SendableMetatype> {
    @usableFromInline
    final class Notes {
        @usableFromInline var observations: [KeyObservation] = []
        /// The subject of reads of every key, when one is observed.
        @usableFromInline var everyKey: KeyObservation?
        @usableFromInline var keys: [Key] = []
        @usableFromInline var listeners: [Subscriber<Key>] = []
        /// Keys a removal took out of the dictionary: released with the publication, unlocked.
        @usableFromInline var releasedKeys: [Key] = []
        /// Observed keys whose value was replaced: each is told only if its two values differ.
        @usableFromInline var replacements: [Replacement] = []

        @usableFromInline init() {}
    }

    /// The first observed key's subject to notify.
    @usableFromInline var firstObservation: KeyObservation?
    /// Everything else to tell.
    @usableFromInline var notes: Notes?

    @inlinable init() {}

    @inlinable var isEmpty: Bool {
        firstObservation == nil && notes == nil
    }

    /// Notes `observation`.
    @inlinable
    mutating func noteObservation(_ observation: KeyObservation) {
        if firstObservation == nil {
            firstObservation = observation
        } else {
            writableNotes().observations.append(observation)
        }
    }

    /// Notes `first` and every subject listed after it. Under the lock that guards their list.
    @inlinable
    mutating func noteSubjects(_ first: KeyObservation) {
        guard first.next != nil else { return noteObservation(first) }
        noteList(first)
    }

    /// ``noteSubjects(_:)`` for a key that more than one subject observes.
    @usableFromInline
    mutating func noteList(_ first: KeyObservation) {
        var next: KeyObservation? = first
        while let subject = next {
            next = subject.next
            noteObservation(subject)
        }
    }

    @inlinable
    mutating func noteReleased(_ key: Key) {
        writableNotes().releasedKeys.append(key)
    }

    @inlinable
    mutating func noteEveryKey(_ observation: KeyObservation) {
        writableNotes().everyKey = observation
    }

    @inlinable
    mutating func note(_ key: Key, subscribers: [UInt64: Subscriber<Key>]) {
        let notes = writableNotes()
        if notes.keys.isEmpty { notes.listeners = Array(subscribers.values) }
        notes.keys.append(key)
    }

    /// An observed key's value replaced by `value`, and whom to tell if it differs from `previous`.
    @usableFromInline
    struct Replacement {
        @usableFromInline let previous: Any
        @usableFromInline let value: Any
        @usableFromInline let telling: Publication<Key>

        @inlinable
        init(previous: Any, value: Any, telling: Publication<Key>) {
            (self.previous, self.value, self.telling) = (previous, value, telling)
        }
    }

    /// Notes a replaced value, whose `telling` is told only if its two values differ.
    @inlinable
    mutating func noteReplacement(_ replacement: Replacement) {
        writableNotes().replacements.append(replacement)
    }

    /// Adds to this publication whom to tell of each replacement whose values differ (see
    /// ``leavesUnchanged(_:_:)``): a value equal to the one it replaced changes nothing. With no
    /// lock held, as it runs the values' `==`.
    @usableFromInline
    mutating func tellReplacementsThatChanged() {
        guard let notes, !notes.replacements.isEmpty else { return }
        let replacements = notes.replacements
        notes.replacements = []
        for replacement in replacements where !leavesUnchanged(replacement.previous, replacement.value) {
            merge(replacement.telling)
        }
    }

    /// Adds whom `other` tells to whom this publication tells.
    @usableFromInline
    mutating func merge(_ other: Publication<Key>) {
        if let first = other.firstObservation { noteObservation(first) }
        guard let others = other.notes else { return }
        for observation in others.observations { noteObservation(observation) }
        if let everyKey = others.everyKey { noteEveryKey(everyKey) }
        guard !others.keys.isEmpty else { return }
        let notes = writableNotes()
        if notes.keys.isEmpty { notes.listeners = others.listeners }
        notes.keys.append(contentsOf: others.keys)
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
/// whether *another* thread wrote the key meanwhile: its closure's own writes are not a conflict;
/// and the key's update turn.
///
/// The turn: an update that lost twice claims it; while a thread holds it, other updaters of the
/// key wait before they read the key (unless they hold a turn themselves), first come first served,
/// and the holder hands the turn to the first of them when its write is done. Only writes that are
/// not updates can then make the holder run its closure again.
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

    /// The thread holding the key's update turn, if any, and the updaters waiting for it, in order.
    @usableFromInline var turn: ThreadID?
    @usableFromInline var waiters: [UpdateTurnWaiter] = []

    @usableFromInline init() {}

    @usableFromInline var isIdle: Bool { updaters.isEmpty && turn == nil && waiters.isEmpty }

    /// What an update that is about to read the key does about the key's turn.
    @usableFromInline
    enum TurnAnswer: Sendable {
        /// Go on: no other thread holds the turn, or this one does, or this one may not wait.
        case proceed
        /// The turn is this thread's now.
        case granted
        /// Wait on this, with the lock left, until the turn is handed to this thread.
        case wait(UpdateTurnWaiter)
    }

    /// Answers an update on thread `me` that is about to read the key; `claiming` takes the turn when
    /// it is free, and `mayWait` is whether `me` may wait for it (it holds no turn).
    @usableFromInline
    mutating func requestTurn(for me: ThreadID, claiming: Bool, mayWait: Bool) -> TurnAnswer {
        switch turn {
        case nil:
            guard claiming else { return .proceed }
            turn = me
            return .granted
        case let holder? where holder == me:
            return .proceed
        case .some:
            guard mayWait, !cachestore_holds_turn() else { return .proceed }
            let waiter = UpdateTurnWaiter()
            waiters.append(waiter)
            return .wait(waiter)
        }
    }

    /// Ends the holder's turn; hands it to the first waiter, returned to be signalled with the lock
    /// left, if any.
    @usableFromInline
    mutating func releaseTurn() -> UpdateTurnWaiter? {
        guard !waiters.isEmpty else {
            turn = nil
            return nil
        }
        let next = waiters.removeFirst()
        turn = next.thread
        return next
    }

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

/// An updater waiting for a key's update turn (see ``UpdateWatch``): the holder hands the turn over by
/// naming this thread and signalling.
@usableFromInline
final class UpdateTurnWaiter: Sendable {
    @usableFromInline let thread = ThreadID.current
    private let semaphore = DispatchSemaphore(value: 0)

    @usableFromInline init() {}

    /// Blocks until ``signal()``.
    @usableFromInline func wait() {
        semaphore.wait()
    }

    @usableFromInline func signal() {
        semaphore.signal()
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

@available(*, unavailable)
extension Publication.Replacement: Sendable {}
