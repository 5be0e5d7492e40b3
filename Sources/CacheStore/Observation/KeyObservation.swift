import Observation

/// The `Observable` subject that per-key observation is recorded against.
///
/// `withObservationTracking` records accesses as key paths. Each key of a key space gets its own
/// key path, `\KeyObservation<Key>.[key]`, built the first time the key is read and cached, so that a
/// change to one key fires only the observers that read that key.
@usableFromInline
final class KeyObservation<Key: Hashable & SendableMetatype>: Observable, @unchecked Sendable {
    @usableFromInline typealias KeyPathForKey = KeyPath<KeyObservation<Key>, Void>

    @usableFromInline let registrar = ObservationRegistrar()

    @usableFromInline init() {}

    /// The member each key path points at; it is never read for its value.
    @usableFromInline subscript(key: Key) -> Void { () }

    /// The key path observers of `key` are registered under. Building one costs more than a lookup,
    /// so ``KeyedValues`` keeps it beside the key's value once built.
    @inlinable
    func keyPath(for key: Key) -> KeyPathForKey {
        \KeyObservation<Key>.[key]
    }

    /// Tells the observers of `keyPaths` that their keys changed. Call without holding the lock:
    /// observers run synchronously and may read the store.
    @inlinable
    func notify(_ changed: [KeyPathForKey]) {
        for keyPath in changed {
            registrar.willSet(self, keyPath: keyPath)
            registrar.didSet(self, keyPath: keyPath)
        }
    }
}
