/// Who an effect is: the id it was given, or an anonymous identity made for it.
///
/// An anonymous effect is started, admitted and finished by a store without its id ever being
/// wrapped in, hashed or compared as an `AnyHashable`: measured with callgrind, making the
/// `AnyHashable` alone costs about 2,300 instructions (a generic initializer with a dynamic cast),
/// and each comparison another 1,000 (a generic metadata lookup), against an `effect-roundtrip` floor
/// of about 4,500. ``id`` makes it only when asked for.
///
/// ```swift
/// let identity = EffectIdentity(nil)            // anonymous
/// identity.id == identity.id                    // true: the same serial number each time
/// EffectIdentity(CancelID.search).id            // CancelID.search, as an AnyHashable
/// ```
@usableFromInline
package enum EffectIdentity: @unchecked Sendable {
    /// An id the user gave: a new effect with an equal id replaces the running one.
    case given(AnyHashable)
    /// No id was given: equal only to itself, the effect replaces only a run of itself (the same
    /// effect returned again) or an effect given its id.
    case anonymous(AnonymousEffectID)
    /// A throttled effect waiting to start under this id (see
    /// ``ActionEffect/throttle(id:for:clock:latest:)``): it replaces the effect waiting under the id,
    /// not the one running under it, and is cancelled with both by the id. Never an effect's own
    /// identity, only one a store's ``EffectLifecycle`` keeps.
    case waiting(AnyHashable)

    /// The identity of `id`, or a new anonymous one for `nil`.
    ///
    /// A consuming switch: `if let` copied the id and destroyed the original through `Optional`'s
    /// value witness (callgrind, `effect-roundtrip`: 7,321 → 7,293 instructions).
    @inlinable
    package init(_ id: consuming AnyHashable?) {
        switch consume id {
        case .some(let id): self = .given(id)
        case .none: self = .anonymous(AnonymousEffectID())
        }
    }

    /// Whether the effect was given no id.
    @inlinable
    package var isAnonymous: Bool {
        // A switch without bindings reads the case alone: `if case` copied the identity first.
        switch self {
        case .anonymous: true
        case .given, .waiting: false
        }
    }

    /// The id as users see it (``ActionEffect/id``).
    @inlinable
    package var id: AnyHashable {
        switch self {
        case .given(let id), .waiting(let id): id
        case .anonymous(let anonymous): AnyHashable(anonymous)
        }
    }
}
