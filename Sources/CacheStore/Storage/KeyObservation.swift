import Observation

/// The `Observable` subject of one observed key, or of a whole key space's reads at once.
///
/// `withObservationTracking` records an access as a subject and a key path. Each observed key gets a
/// subject of its own, so a change to one key fires only the observers that read that key, and every
/// subject is recorded under the same stored-property key path, ``sharedKeyPath``: the Observation framework
/// then hashes a constant key path, as it does for an `@Observable` class's property, where a key
/// path per key (`\Observation.[key]`) would hash the key with it on every access and write.
///
/// ```swift
/// let observation = KeyObservation()    // made on a key's first observed read, under the core's lock
/// observation.access(keyPath: core.subjectKeyPath)  // each observed read, under the lock
/// observation.notify(keyPath: core.subjectKeyPath)  // after a write, with no lock held
/// ```
///
/// A scope's reads are recorded on subjects of the scope's own (``LinkedKeyObservation``), listed in
/// the slot of the key they read after the key's own subject: the base class is open for that one
/// subclass only. The list's links (``next``, ``previous``) are in the base class, so that a slot
/// holds one reference whoever observes its key: the links cost memory once per observed key, not on
/// every stored key. A key's first observed read makes a subject, not a key path.
@usableFromInline
class KeyObservation: Observable, @unchecked Sendable {
    // The fields a write reads (the reference count, `registrar`, `next`) come first, together;
    // `previous` and `host`, read only to link and unlink it, after them.

    @usableFromInline final let registrar = ObservationRegistrar()

    /// The next subject told of the same key's writes: the subjects of a key form one list, which its
    /// slot in the ``RootCore`` starts (see ``RootCore/Slot/subjects``). Guarded by that core's lock.
    @exclusivity(unchecked) @usableFromInline final var next: KeyObservation?

    /// The subject before this one in its key's list, `nil` for the first; guarded by the core's lock.
    /// Unretained: while this subject is listed, the one before holds it through its ``next``, and
    /// unlinking either relinks both. So a scope's release unlinks its subject in O(1), however many
    /// scopes observe the key.
    @exclusivity(unchecked) @usableFromInline final unowned(unsafe) var previous: KeyObservation?

    /// Whether a scope's subject is listed in its key's slot now: a slot emptied and dropped unlinks
    /// its subjects, and a scope offering one again has it linked again. Guarded by the host core's
    /// lock.
    @exclusivity(unchecked) @usableFromInline final var isLinked = false

    /// The address of the core that a scope's subject is linked into (see ``LinkedKeyObservation``);
    /// `nil` for a key's own subject. An address, neither retained nor released: the scope that owns
    /// the subject holds its parent, and so that core, until it has unlinked the subject.
    @usableFromInline final let host: UnsafeMutableRawPointer?

    /// The member every access is recorded under; it is never read for its value.
    @usableFromInline final var changes: Void = ()

    /// The key path of ``changes``, made once: a key path is immutable, so sharing it is safe. Each
    /// ``RootCore`` holds it (``RootCore/subjectKeyPath``) and passes it to ``access(keyPath:)`` and
    /// ``notify(keyPath:)``: reading a `static let` calls `swift_once` each time.
    @usableFromInline nonisolated(unsafe) static let sharedKeyPath: KeyPath<KeyObservation, Void> =
        \KeyObservation.changes

    @usableFromInline init(host: UnsafeMutableRawPointer? = nil) {
        self.host = host
    }

    /// A key's own subject, listed before `next`, the subjects the key's slot listed so far (see
    /// ``RootCore/Slot/subjects``). Under the core's lock.
    @usableFromInline
    convenience init(before next: KeyObservation?) {
        self.init()
        self.next = next
        next?.previous = self
    }

    /// Records a read for the `withObservationTracking` running on this thread, if any.
    ///
    /// - Parameter keyPath: ``sharedKeyPath``, as the calling core holds it.
    @inlinable
    final func access(keyPath: KeyPath<KeyObservation, Void>) {
        registrar.access(self, keyPath: keyPath)
    }

    /// Tells the observers that the key changed. Call with no lock held: observers run synchronously
    /// and may use the store.
    ///
    /// - Parameter keyPath: ``sharedKeyPath``, as the calling core holds it.
    @inlinable
    final func notify(keyPath: KeyPath<KeyObservation, Void>) {
        registrar.willSet(self, keyPath: keyPath)
        registrar.didSet(self, keyPath: keyPath)
    }
}

/// A scope's subject of one key: the reads of the key *through that scope* are recorded on it, and the
/// key's slot in the ``RootCore`` that stores it lists it, so every write of the key notifies it.
///
/// The scope owns the subject and unlinks it when the scope is released (through its parent's
/// ``CoreAccess/unlink``): its observers go with it, so a scope made and released over a key that
/// never changes leaves nothing in that key's own subject.
@usableFromInline
final class LinkedKeyObservation<Key: Hashable & SendableMetatype>: KeyObservation, @unchecked Sendable {
    /// The key whose slot lists this subject, in the core that is its ``KeyObservation/host``.
    @usableFromInline let key: Key

    @inlinable
    init(core: RootCore<Key>, key: Key) {
        self.key = key
        super.init(host: Unmanaged.passUnretained(core).toOpaque())
    }
}
