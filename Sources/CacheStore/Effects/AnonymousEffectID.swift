import CacheStoreAtomics

/// The id of an effect created without one: equal only to itself, so it replaces nothing.
///
/// ```swift
/// AnonymousEffectID() == AnonymousEffectID()    // false: each is a new serial number
/// ```
///
/// A serial number from one process-wide counter: unique in the process, with no allocation and no
/// read of the system's random source. The counter is an atomic C global
/// (`cachestore_next_anonymous_effect_serial`): no lock, and no `swift_once` check of whether it
/// was made yet, as a Swift global would need.
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
