/// What a test can change on a ``TestStore``, read and changed under its lock.
struct TestStoreSettings {
    var effectTimeout: Duration = .seconds(10)
    var exhaustivity: Exhaustivity = .on
    var skippedAssertionsOutput: @Sendable (String) -> Void = { print($0) }
}
