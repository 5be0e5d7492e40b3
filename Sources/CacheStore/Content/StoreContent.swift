/// What a view shows, built from a store's state: the original CacheStore's view content, kept for
/// code outside SwiftUI too.
///
/// A content type reads what it needs from a read-only store in its initializer. Build one with
/// ``Store/content(using:)``; test it with `CacheStoreTesting`'s `TestStore.content(using:expecting:)`.
///
/// ```swift
/// struct CounterContent: StoreContent {
///     let label: String
///
///     init(store: Store<CounterKey, Void, Void>) {
///         label = "Count: \(store.get(.count, as: Int.self) ?? 0)"
///     }
/// }
///
/// let content = store.content(using: CounterContent.self)
/// print(content.label)  // Count: 1
/// ```
///
/// ## Topics
///
/// ### Building content
///
/// - ``Key``
/// - ``init(store:)``
public protocol StoreContent {
    /// The key type of the stores the content is built from.
    associatedtype Key: Hashable & SendableMetatype

    /// Creates the content from a read-only store: one that sees every key of the store it was
    /// made from, live, and has no actions.
    ///
    /// - Parameter store: The store to read.
    init(store: Store<Key, Void, Void>)
}
