/// Who an effect is: the id it was given, or an anonymous identity made for it.
///
/// An anonymous effect is started, admitted and finished by a store without its id ever being
/// wrapped in, hashed or compared as an `AnyHashable`, the costliest part of an effect's
/// bookkeeping; ``id`` makes one only when asked for.
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

    /// The identity of `id`, or a new anonymous one for `nil`.
    @inlinable
    package init(_ id: consuming AnyHashable?) {
        switch consume id {
        case .some(let id): self = .given(id)
        case .none: self = .anonymous(AnonymousEffectID())
        }
    }

    /// The id as users see it (``ActionEffect/id``).
    @inlinable
    package var id: AnyHashable {
        switch self {
        case .given(let id): id
        case .anonymous(let anonymous): AnyHashable(anonymous)
        }
    }

    /// This identity with a given id turned by `rename`; an anonymous identity, unique already, is
    /// kept, and so is a given id that is an anonymous effect's (it names that effect wherever it is).
    @inlinable
    package func renamingGiven(_ rename: (AnyHashable) -> AnyHashable) -> EffectIdentity {
        switch self {
        case .given(let id) where !(id.base is AnonymousEffectID): .given(rename(id))
        case .given, .anonymous: self
        }
    }
}
