import CacheStore
import Foundation
import Testing
import XCTest

/// Where `TestStore` and ``unimplemented(_:placeholder:fileID:file:line:column:)-2s8eh`` report failures.
///
/// By default a failure is reported natively: with `Issue.record` inside a Swift Testing `@Test`, with
/// `XCTFail` otherwise. Either way it carries the source location of the assertion that found it.
///
/// Set ``handler`` to take over, as existing CacheStore tests do:
///
/// ```swift
/// override func setUp() {
///     TestStoreFailure.handler = XCTFail
/// }
/// ```
///
/// ``withHandler(_:operation:)-(_,)`` takes over for one task only, which is how to capture failure
/// messages in tests that run in parallel.
///
/// ## Topics
///
/// ### Taking over failure reports
///
/// - ``handler``
/// - ``Handler``
/// - ``withHandler(_:operation:)-(_,)``
/// - ``withHandler(_:operation:)-8n6tp``
/// - ``SendableHandler``
public enum TestStoreFailure: Sendable {
    /// Receives a failure's message, file (as `#filePath`) and line. `XCTFail` is one.
    ///
    /// It is not `@Sendable`, so that `XCTFail` (which is not marked) can be assigned as is; it is
    /// called on whichever thread finds the failure, so it must be safe to call from any thread.
    public typealias Handler = (_ message: String, _ file: StaticString, _ line: UInt) -> Void

    /// A ``Handler`` that can be handed to other tasks.
    public typealias SendableHandler = @Sendable (_ message: String, _ file: StaticString, _ line: UInt) -> Void

    private static let lock = NSLock()
    /// Guarded by `lock`.
    nonisolated(unsafe) private static var globalHandler: Handler?
    @TaskLocal private static var taskHandler: SendableHandler?

    /// The handler every failure goes to, in every task; `nil` (the default) reports natively.
    ///
    /// A handler set with ``withHandler(_:operation:)-(_,)`` takes precedence inside its operation.
    public static var handler: Handler? {
        get { lock.withLock { globalHandler } }
        set {
            var replaced = newValue
            lock.withLock { swap(&globalHandler, &replaced) }
            withExtendedLifetime(replaced) {}  // a user's closure: its captures may read `handler` on release
        }
    }

    /// Runs `operation` with failures reported to `handler`, in this task and the tasks it creates.
    ///
    /// ```swift
    /// let messages = Mutex<[String]>([])
    /// await TestStoreFailure.withHandler({ message, _, _ in messages.withLock { $0.append(message) } }) {
    ///     await store.receive(.loaded)
    /// }
    /// #expect(messages.withLock { $0 } == ["…"])
    /// ```
    ///
    /// - Parameters:
    ///   - handler: Receives every failure reported while `operation` runs.
    ///   - operation: The code whose failures to capture.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws, unchanged; a failure reported is never thrown.
    ///
    /// It runs on the caller's actor (`nonisolated(nonsending)`), as `operation` does, so a `@MainActor`
    /// test (every test of a target with main-actor isolation by default) passes a closure that uses
    /// its own state without sending it to another isolation domain.
    nonisolated(nonsending) public static func withHandler<Result>(
        _ handler: @escaping SendableHandler,
        operation: nonisolated(nonsending) () async throws -> Result
    ) async rethrows -> Result {
        try await $taskHandler.withValue(handler, operation: operation)
    }

    /// Runs `operation` with failures reported to `handler`: the synchronous form.
    ///
    /// - Parameters:
    ///   - handler: Receives every failure reported while `operation` runs.
    ///   - operation: The code whose failures to capture.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws, unchanged; a failure reported is never thrown.
    public static func withHandler<Result>(
        _ handler: @escaping SendableHandler,
        operation: () throws -> Result
    ) rethrows -> Result {
        try $taskHandler.withValue(handler, operation: operation)
    }

    /// Reports `message` at `location`: to the task's handler, the global handler, Swift Testing or
    /// XCTest, the first that applies.
    static func report(_ message: String, at location: FailureLocation) {
        if let handler = taskHandler {
            handler(message, location.filePath, location.line)
        } else if let handler {
            handler(message, location.filePath, location.line)
        } else if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: String(describing: location.fileID),
                    filePath: String(describing: location.filePath),
                    line: Int(location.line),
                    column: Int(location.column)))
        } else {
            XCTFail(message, file: location.filePath, line: location.line)
        }
    }
}
