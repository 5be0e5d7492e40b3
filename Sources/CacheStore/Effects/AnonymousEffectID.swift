import CacheStoreAtomics

/// The id of an effect created without one: equal only to itself, so it replaces nothing.
///
/// ```swift
/// AnonymousEffectID() == AnonymousEffectID()    // false: each is a new serial number
/// ```
///
/// A `UUID` did this first, but making one reads `/dev/urandom` on Linux (about 3.7 µs per effect);
/// an object compared by identity came next, an allocation and a release per effect. A serial number
/// from one process-wide counter came next: about 400 instructions less per `effect-roundtrip` than
/// with the object (callgrind), and the counter an atomic word instead of a locked one, about 180 less.
/// The counter is a C global (`cachestore_next_anonymous_effect_serial`): as a Swift global, each
/// effect asked `swift_once` whether it was made yet (callgrind, `effect-roundtrip`: 6,758 → 6,518).
@usableFromInline
package struct AnonymousEffectID: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let serial: UInt64

    @inlinable
    package init() {
        serial = cachestore_next_anonymous_effect_serial()
    }

    @usableFromInline
    package var description: String { "an effect without an id" }
}
