/// What a test can change on a ``TestStore``, read and changed under its lock.
@usableFromInline
struct TestStoreSettings: Sendable {
    var effectTimeout: Duration = .seconds(10)
    var skippedAssertionsOutput: @Sendable (String) -> Void = { print($0) }
}
