// The documentation audit's self-test compiles this file and reads the Documentation.docc beside it.
// Each `expect` comment says what the audit must report for the declaration on its line; nothing
// else may be reported.

/// A documented type.
///
/// ```swift
/// let total = Complete().add(1, to: 2)
/// ```
///
/// ## Topics
///
/// ### Adding
///
/// - ``add(_:to:)``
/// - ``plus(_:_:)-5ybx2``
public struct Complete {
    /// Makes one.
    public init() {}

    /// Adds two numbers.
    ///
    /// - Parameters:
    ///   - first: One number.
    ///   - second: The other.
    /// - Returns: The sum.
    public func add(_ first: Int, to second: Int) -> Int { first + second }

    /// Checks a number.
    ///
    /// - Parameter value: The number.
    /// - Throws: `CancellationError` when the number is negative.
    public func check(_ value: Int) throws { if value < 0 { throw CancellationError() } }

    /// Forwards what `body` throws.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func run<T>(_ body: () throws -> T) rethrows -> T { try body() }
}

public struct Undocumented {}  // expect: Undocumented lacks a doc comment starting with a summary line

/// Has a summary but no example.
public enum NoExample {  // expect: NoExample lacks a ```swift example
    /// A documented case.
    case documented
    case bare  // expect: NoExample.bare lacks a doc comment starting with a summary line
}

extension Complete {
    /// Adds without saying what it returns or what `second` is.
    ///
    /// - Parameter first: One number.
    public func plus(_ first: Int, _ second: Int) -> Int { first + second }  // expect: Complete.plus(_:_:) lacks `- Parameter second:`, `- Returns:`

    /// Takes a throwing closure, but doesn't throw itself.
    ///
    /// - Parameter body: The work, whose errors are ignored.
    public func ignoringErrors(_ body: () throws -> Void) { try? body() }

    /// Throws without saying so.
    public func fail() throws { throw CancellationError() }  // expect: Complete.fail() lacks `- Throws:`, a link under a `## Topics` heading of its catalog
}

/// Conforms, and leaves the requirement's implementation undocumented.
///
/// ```swift
/// print(Described())
/// ```
public struct Described: CustomStringConvertible {
    public var description: String { "described" }  // expect: Described.description lacks a doc comment starting with a summary line
}

/// A free function with everything.
///
/// ```swift
/// let doubled = double(2)
/// ```
///
/// - Parameter value: The number.
/// - Returns: Twice `value`.
public func double(_ value: Int) -> Int { value * 2 }
