/// A dependency closure for a test that must not call it: calling it reports a failure naming
/// `name`, then returns `placeholder`.
///
/// The closure takes any number of arguments; its type comes from the context:
///
/// ```swift
/// struct Dependency: Sendable {
///     var fetchPosts: @Sendable (URL) async -> Result<[Post], any Error>
///     var now: @Sendable () -> Date
/// }
///
/// extension Dependency {
///     static let unimplemented = Dependency(
///         fetchPosts: unimplemented("fetchPosts", placeholder: .success([])),
///         now: unimplemented("now", placeholder: Date(timeIntervalSince1970: 0))
///     )
/// }
/// ```
///
/// Start a test from such a dependency and replace only what the test should use: any other call
/// fails the test, pointing at where the placeholder was made.
///
/// - Parameters:
///   - name: Names the dependency in the failure message.
///   - placeholder: What the closure returns, so the code under test can go on.
///   - fileID: Where a call is reported (defaults to the caller).
///   - file: Where a call is reported (defaults to the caller).
///   - line: Where a call is reported (defaults to the caller).
///   - column: Where a call is reported (defaults to the caller).
/// - Returns: A closure that reports each call.
public func unimplemented<each Argument, Result: Sendable>(
    _ name: String,
    placeholder: Result,
    fileID: StaticString = #fileID,
    file: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> @Sendable (repeat each Argument) -> Result {
    let call = UnimplementedCall(
        name: name, placeholder: placeholder, fileID: fileID, file: file, line: line, column: column)
    return { (_: repeat each Argument) in call.report() }
}

/// The `async` form of ``unimplemented(_:placeholder:fileID:file:line:column:)-2s8eh``, chosen when
/// the context expects an `async` closure.
///
/// ```swift
/// let fetchPosts: @Sendable (URL) async -> [Post] = unimplemented("fetchPosts", placeholder: [])
/// ```
///
/// - Parameters:
///   - name: Names the dependency in the failure message.
///   - placeholder: What the closure returns, so the code under test can go on.
///   - fileID: Where a call is reported (defaults to the caller).
///   - file: Where a call is reported (defaults to the caller).
///   - line: Where a call is reported (defaults to the caller).
///   - column: Where a call is reported (defaults to the caller).
/// - Returns: An `async` closure that reports each call.
public func unimplemented<each Argument, Result: Sendable>(
    _ name: String,
    placeholder: Result,
    fileID: StaticString = #fileID,
    file: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> @Sendable (repeat each Argument) async -> Result {
    let call = UnimplementedCall(
        name: name, placeholder: placeholder, fileID: fileID, file: file, line: line, column: column)
    return { (_: repeat each Argument) in call.report() }
}

/// What an unimplemented dependency does when called: report, then return its placeholder.
private struct UnimplementedCall<Result: Sendable>: Sendable {
    let name: String
    let placeholder: Result
    let location: FailureLocation

    init(name: String, placeholder: Result, fileID: StaticString, file: StaticString, line: UInt, column: UInt) {
        self.name = name
        self.placeholder = placeholder
        self.location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
    }

    func report() -> Result {
        TestStoreFailure.report(
            """
            Unimplemented: \(name) was called.
            The test did not expect this dependency to be used. Give the test a dependency that \
            implements \(name), or fix the code that calls it.
            """,
            at: location)
        return placeholder
    }
}
