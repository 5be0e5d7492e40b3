import Observation

/// The `Observable` subject of one observed key, or of a whole key space's reads at once.
///
/// `withObservationTracking` records an access as a subject and a key path. Each observed key gets a
/// subject of its own, so a change to one key fires only the observers that read that key, and every
/// subject is recorded under the same stored-property key path, ``keyPath``: the Observation framework
/// then hashes a constant key path, as it does for an `@Observable` class's property, where a key
/// path per key (`\Observation.[key]`) would hash the key with it on every access and write.
///
/// ```swift
/// let observation = KeyObservation()    // made on a key's first observed read, under the core's lock
/// observation.access()                  // each observed read, under the lock
/// observation.notify()                  // after a write, with no lock held
/// ```
///
/// Measured with callgrind (`store-handle-observed-same`, a write whose observer registers again):
/// 20,158 instructions with a subscript key path per key and an unspecialized publish, 17,147 with
/// this subject per key; an `@Observable` class's property takes 12,959. A key's first observed read
/// makes a subject (two small allocations) instead of building a key path (about 12,000).
@usableFromInline
final class KeyObservation: Observable, @unchecked Sendable {
    @usableFromInline let registrar = ObservationRegistrar()

    /// The member every access is recorded under; it is never read for its value.
    @usableFromInline var changes: Void = ()

    /// The key path of ``changes``, made once: a key path is immutable, so sharing it is safe.
    @usableFromInline nonisolated(unsafe) static let sharedKeyPath: KeyPath<KeyObservation, Void> =
        \KeyObservation.changes

    /// ``sharedKeyPath``, held by each subject: reading a `static let` calls `swift_once` each time
    /// (callgrind: `store-handle-observed-same` 14,257 → 14,229 instructions, `cache-get` 714 → 701).
    /// It fits the subject's allocation, which malloc rounds to 32 bytes anyway.
    @usableFromInline let keyPath: KeyPath<KeyObservation, Void>

    @usableFromInline init() {
        keyPath = Self.sharedKeyPath
    }

    /// Records a read for the `withObservationTracking` running on this thread, if any.
    @inlinable
    func access() {
        registrar.access(self, keyPath: keyPath)
    }

    /// Tells the observers that the key changed. Call with no lock held: observers run synchronously
    /// and may use the store.
    @inlinable
    func notify() {
        registrar.willSet(self, keyPath: keyPath)
        registrar.didSet(self, keyPath: keyPath)
    }
}
