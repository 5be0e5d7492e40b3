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

/// The parent key that scoped key `key` is mapped to, under the one visibility rule of every scope
/// and lifted handler: `key` is mapped to `p` exactly when `to(key) == p` and `from(p) == key`;
/// otherwise `nil` (a transformation that is not injective, or whose halves are not inverses, only
/// maps fewer keys).
///
/// ```swift
/// mappedParentKey(of: SettingsKey.theme, to: { $0 == .theme ? .theme : nil }, from: { $0 == .theme ? .theme : nil })
/// // AppKey.theme
/// ```
@inlinable
func mappedParentKey<Key: Equatable, ParentKey>(
    of key: Key, to toParent: (Key?) -> ParentKey?, from fromParent: (ParentKey?) -> Key?
) -> ParentKey? {
    guard let parentKey = toParent(key), fromParent(parentKey) == key else { return nil }
    return parentKey
}

/// The scoped key under which `parentKey` is visible, under the same rule as
/// ``mappedParentKey(of:to:from:)``, or `nil`.
@inlinable
func visibleScopedKey<Key, ParentKey: Equatable>(
    of parentKey: ParentKey, to toParent: (Key?) -> ParentKey?, from fromParent: (ParentKey?) -> Key?
) -> Key? {
    guard let key = fromParent(parentKey), toParent(key) == parentKey else { return nil }
    return key
}
