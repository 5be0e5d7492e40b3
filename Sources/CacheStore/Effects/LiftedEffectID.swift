import CacheStoreAtomics

/// The namespace of one lift of a feature's handler into an app's
/// (``StoreActionHandler/scope(label:keyTransformation:actionHandler:extractAction:embedAction:dependencyTransformation:)``):
/// every id the feature gives its effects runs in it, so a feature lifted twice keeps its effects
/// apart.
@usableFromInline
struct EffectLift: Sendable, Equatable {
    /// Tells this lift from every other in the process.
    @usableFromInline let serial: UInt64
    /// The lift's name in messages, if it was given one.
    @usableFromInline let label: String?

    @usableFromInline
    init(label: String?) {
        serial = cachestore_next_anonymous_effect_serial()
        self.label = label
    }

    /// The app's id of the feature's effect id `id`.
    @usableFromInline
    func id(_ id: AnyHashable) -> AnyHashable {
        AnyHashable(LiftedEffectID(lift: self, id: id))
    }
}

/// The id under which an app's store runs a lifted feature's effect: the feature's own id, in the
/// namespace of its lift. Made by ``StoreActionHandler/effectID(_:)``.
struct LiftedEffectID: Hashable, @unchecked Sendable, CustomStringConvertible {
    let lift: EffectLift
    let id: AnyHashable

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.lift.serial == rhs.lift.serial && lhs.id == rhs.id
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(lift.serial)
        hasher.combine(id)
    }

    var description: String {
        guard let label = lift.label else { return "\(id) (of a lifted feature)" }
        return "\(label)/\(id)"
    }
}
