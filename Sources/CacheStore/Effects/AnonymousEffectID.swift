/// The id of an effect created without one: equal only to itself, so it replaces nothing.
///
/// A `UUID` did this before, but making one reads `/dev/urandom` on Linux (about 3.7 µs per effect);
/// an instance of this class costs one small allocation. It stays an `AnyHashable` as every id.
@usableFromInline
package final class AnonymousEffectID: Hashable, Sendable, CustomStringConvertible {
    @inlinable
    package init() {}

    @inlinable
    package static func == (lhs: AnonymousEffectID, rhs: AnonymousEffectID) -> Bool {
        lhs === rhs
    }

    @inlinable
    package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    @usableFromInline
    package var description: String { "an effect without an id" }
}
