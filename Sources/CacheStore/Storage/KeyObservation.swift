import Observation

/// The `Observable` subject that per-key observation is recorded against.
///
/// `withObservationTracking` records accesses as key paths. Each key gets its own key path,
/// `\KeyObservation<Key>.[key]`, so a change to one key fires only the observers that read that key;
/// ``everyKeyPath`` stands for the whole key space, for reads such as `allValues`.
@usableFromInline
final class KeyObservation<Key: Hashable & SendableMetatype>: Observable, @unchecked Sendable {
    @usableFromInline typealias KeyPathForKey = KeyPath<KeyObservation<Key>, Void>

    @usableFromInline let registrar = ObservationRegistrar()
    /// The key path of reads of every key at once: fired by any write, insert or removal.
    @usableFromInline let everyKeyPath: KeyPathForKey = \KeyObservation<Key>.everyKey

    @usableFromInline init() {}

    /// The member each key's key path points at; it is never read for its value.
    @usableFromInline subscript(key: Key) -> Void { () }

    /// The member ``everyKeyPath`` points at.
    @usableFromInline var everyKey: Void { () }

    /// The key path observers of `key` are registered under. Building one costs more than a lookup,
    /// so ``RootCore`` keeps it beside the key's value once built.
    @inlinable
    func keyPath(for key: Key) -> KeyPathForKey {
        \KeyObservation<Key>.[key]
    }

    /// Records a read of `keyPath` for the `withObservationTracking` running on this thread, if any.
    @inlinable
    func access(_ keyPath: KeyPathForKey) {
        registrar.access(self, keyPath: keyPath)
    }

    /// Tells the observers of `keyPath` that it changed. Call with no lock held: observers run
    /// synchronously and may use the store.
    @inlinable
    func notify(_ keyPath: KeyPathForKey) {
        registrar.willSet(self, keyPath: keyPath)
        registrar.didSet(self, keyPath: keyPath)
    }
}
