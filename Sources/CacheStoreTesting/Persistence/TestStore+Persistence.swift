import CacheStore
import Foundation

extension TestStore {
    /// Creates a test store around a new store whose keys in `persistence` are persisted in memory:
    /// restored from `saved`, and saved where ``persisted`` reads them. The test touches no disk.
    ///
    /// ```swift
    /// let store = TestStore(
    ///     initialValues: [:], actionHandler: settingsHandler, dependency: (),
    ///     persistence: Persistence(folder: settingsFolder).persisting(.theme),
    ///     saved: [.theme: "dark"])
    /// store.send(.setTheme("light")) { $0[.theme] = "light" }
    /// #expect(store.persisted[.theme] == "light")
    /// ```
    ///
    /// - Parameters:
    ///   - initialValues: The state the store starts with, by key, where `saved` holds no value.
    ///   - actionHandler: The handler under test.
    ///   - dependency: The dependency the handler gets.
    ///   - persistence: Which keys are persisted (its folder is not used).
    ///   - saved: The values a previous run saved, by key. A value of a key that is not persisted, or
    ///     of another type than the key's, is a test failure.
    ///   - fileID: Where leftovers found when the test store is released are reported.
    ///   - file: Where leftovers found when the test store is released are reported.
    ///   - line: Where leftovers found when the test store is released are reported.
    ///   - column: Where leftovers found when the test store is released are reported.
    public convenience init(
        initialValues: [Key: Any],
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        persistence: Persistence<Key>,
        saved: [Key: Any] = [:],
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let (files, problems) = persistence.files(holding: saved)
        self.init(
            store: Store(
                initialValues: initialValues, actionHandler: actionHandler, dependency: dependency,
                persistence: persistence, backend: PersistedMemory(files: files)),
            fileID: fileID, file: file, line: line, column: column)
        for problem in problems { TestStoreFailure.report("A saved value is left out: \(problem)", at: creation) }
    }

    /// What the persisted keys' files hold, once what is pending is saved.
    ///
    /// ```swift
    /// store.send(.setTheme("light")) { $0[.theme] = "light" }
    /// #expect(store.persisted[.theme] == "light")
    /// ```
    public var persisted: PersistedValues<Key, Action, Dependency> {
        PersistedValues(store: store)
    }
}

/// The values a test store's persisted keys' files hold (``TestStore/persisted``).
///
/// ```swift
/// #expect(store.persisted[.theme] == "light")
/// ```
///
/// ## Topics
///
/// ### Reading a saved value
///
/// - ``subscript(_:)``
public struct PersistedValues<Key: Hashable & SendableMetatype, Action, Dependency>: Sendable {
    let store: Store<Key, Action, Dependency>

    /// The value `key`'s file holds once what is pending is saved, or `nil` when there is no file
    /// (or it holds no value of the key's type).
    ///
    /// - Parameter key: A persisted key.
    public subscript<Value>(key: TypedKey<Key, Value>) -> Value? {
        store.savedValue(key)
    }
}
