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
    /// Key paths of the keys read so far. Guarded by the owning tree's lock.
    @exclusivity(unchecked) @usableFromInline var keyPaths: [Key: KeyPathForKey] = [:]

    @usableFromInline init() {}

    /// The member each key path points at; it is never read for its value.
    @usableFromInline subscript(key: Key) -> Void { () }

    /// Records a read of `key` for any `withObservationTracking` running on this thread.
    /// - Important: The tree's lock must be held.
    @inlinable
    func accessLocked(_ key: Key) {
        let keyPath: KeyPathForKey
        if let cached = keyPaths[key] {
            keyPath = cached
        } else {
            keyPath = \KeyObservation<Key>.[key]
            keyPaths[key] = keyPath
        }
        registrar.access(self, keyPath: keyPath)
    }

    /// The key path of `key` if it was ever read, so could be observed. - Important: lock held.
    @inlinable
    func keyPathLocked(_ key: Key) -> KeyPathForKey? {
        keyPaths.isEmpty ? nil : keyPaths[key]
    }

    /// Tells the observers of `keyPaths` that their keys changed. Call without holding the lock:
    /// observers run synchronously and may read the store.
    func notify(_ changed: [KeyPathForKey]) {
        for keyPath in changed {
            registrar.willSet(self, keyPath: keyPath)
            registrar.didSet(self, keyPath: keyPath)
        }
    }
}
