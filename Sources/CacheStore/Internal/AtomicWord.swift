import CacheStoreAtomics

/// One machine word that threads read and change without a lock: the state of a store's turn (see
/// ``ActionQueue``), a flag.
///
/// `Synchronization.Atomic` needs macOS 15; this package supports macOS 14, so the operations are
/// the C compiler's atomic builtins (target `CacheStoreAtomics`), inlined here. The word lives in
/// the object's own allocation, so its address is stable.
///
/// ```swift
/// let word = AtomicWord(0)
/// if word.compareExchange(expected: 0, desired: 1) { /* this thread changed 0 to 1 */ }
/// ```
@usableFromInline
package struct AtomicWord: @unchecked Sendable {
    @usableFromInline let storage: AtomicWordStorage

    @usableFromInline
    package init(_ value: UInt) {
        storage = AtomicWordStorage.make(value)
    }

    /// Sets the word to `desired` if it is `expected` (acquire-release); returns whether it did.
    @inlinable
    package func compareExchange(expected: UInt, desired: UInt) -> Bool {
        storage.withUnsafeMutablePointerToElements { word in
            cachestore_atomic_compare_exchange(word, expected, desired)
        }
    }

    /// The word's value (acquire).
    @inlinable
    package func load() -> UInt {
        storage.withUnsafeMutablePointerToElements { word in cachestore_atomic_load(word) }
    }

    /// Sets the word to `value` (release).
    @inlinable
    package func store(_ value: UInt) {
        storage.withUnsafeMutablePointerToElements { word in cachestore_atomic_store(word, value) }
    }
}

/// The word of an ``AtomicWord``, allocated in the object's tail.
@usableFromInline
final class AtomicWordStorage: ManagedBuffer<Void, UInt> {
    @usableFromInline
    static func make(_ value: UInt) -> AtomicWordStorage {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in () }, to: AtomicWordStorage.self)
        storage.withUnsafeMutablePointerToElements { $0.initialize(to: value) }
        return storage
    }
}
