/// A pair of functions that convert values both ways: `from` one type `to` another, and back.
///
/// Scopes use it to map keys: `from` turns a parent key into the scope's key (or `nil` to hide it from
/// the scope), `to` turns a scope's key back into the parent's (or `nil` for a key that lives in the
/// scope only).
///
/// It is a labeled tuple, as in the original CacheStore, so existing literals keep compiling. Both
/// functions are `@Sendable`: a scope may map keys on any thread, so a transformation can be kept in a
/// global constant and must capture no mutable state.
///
///
/// ```swift
/// let settings = cacheStore.scope(
///     keyTransformation: (
///         from: { (appKey: AppKey?) -> SettingsKey? in appKey == .theme ? .theme : nil },
///         to: { (settingsKey: SettingsKey?) -> AppKey? in settingsKey == .theme ? .theme : nil }
///     )
/// )
/// ```
public typealias BiDirectionalTransformation<From, To> = (from: @Sendable (From) -> To, to: @Sendable (To) -> From)
