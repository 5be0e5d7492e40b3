/// What a test can change on a ``TestStore``, read and changed under its lock.
@usableFromInline
struct TestStoreSettings: Sendable {
    var effectTimeout: Duration = .seconds(10)
    @usableFromInline var exhaustivity: Exhaustivity = .on
    var skippedAssertionsOutput: @Sendable (String) -> Void = { print($0) }
}
