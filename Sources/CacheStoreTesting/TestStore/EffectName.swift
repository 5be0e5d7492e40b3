import CacheStore

/// How the test store's failures name an effect: by the id it was given ("the effect .load"), or as
/// "an effect without an id", never by the type of an anonymous effect's id.
enum EffectName {
    /// The name of the effect of `id` (`nil`: an effect without an id).
    static func of(_ id: AnyHashable?) -> String {
        guard let id, !(id.base is AnonymousEffectID) else { return "an effect without an id" }
        return "the effect \(ValueDump.inline(id.base))"
    }

    /// A deadline's instant as a failure shows it: a ``TestClock``'s as its offset ("0.3 seconds"),
    /// another clock's as its dump.
    static func of(instant: any Sendable) -> String {
        (instant as? TestClock.Instant).map { "\($0.offset)" } ?? ValueDump.inline(instant)
    }
}
