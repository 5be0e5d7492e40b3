extension Store {
    /// Builds `contentType` from this store's state.
    ///
    /// ```swift
    /// let content = store.content(using: CounterContent.self)
    /// print(content.label)  // Count: 1
    /// ```
    ///
    /// The content gets an actionless scope of this store with every key: it reads this store's
    /// state as it is now (and later, if it keeps the store), and cannot change it.
    ///
    /// - Parameter contentType: The content to build; inferred from the context when left out.
    /// - Returns: The content, built from this store's state.
    public func content<Content: StoreContent>(using contentType: Content.Type = Content.self) -> Content
    where Content.Key == Key {
        contentType.init(
            store: actionlessScope(keyTransformation: (from: { $0 }, to: { $0 }), dependencyTransformation: { _ in () })
        )
    }
}
