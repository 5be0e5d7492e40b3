import CacheStore

extension TestStore {
    /// Builds `contentType` from the store's state, as ``/CacheStore/Store/content(using:)`` does.
    ///
    /// - Parameter contentType: The content to build; inferred from the context when left out.
    /// - Returns: The content, built from the state the store has now.
    public func content<Content: StoreContent>(using contentType: Content.Type = Content.self) -> Content
    where Content.Key == Key {
        store.content(using: contentType)
    }

    /// Builds `contentType` from the store's state and checks it in `expecting`: an error the closure
    /// throws is a failure, reported at the caller.
    ///
    /// ```swift
    /// store.send(.increment) { $0.set(value: 1, forKey: .count) }
    /// store.content(using: CounterContent.self) { content in
    ///     #expect(content.label == "Count: 1")
    /// }
    /// ```
    ///
    /// Use your test framework's own assertions inside `expecting` (`#expect`, `XCTAssertEqual`).
    ///
    /// - Parameters:
    ///   - contentType: The content to build; inferred from `expecting` when left out.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    ///   - expecting: Checks the content.
    public func content<Content: StoreContent>(
        using contentType: Content.Type = Content.self,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        expecting: (Content) throws -> Void
    ) where Content.Key == Key {
        do {
            try expecting(content(using: contentType))
        } catch {
            TestStoreFailure.report(
                "The expectation about \(Content.self) threw \(ValueDump.inline(error)).",
                at: FailureLocation(fileID: fileID, filePath: file, line: line, column: column))
        }
    }
}
