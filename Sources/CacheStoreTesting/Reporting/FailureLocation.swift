/// Where in a test a failure belongs: the call site of the assertion that found it.
@usableFromInline
struct FailureLocation: Sendable {
    /// The file as `#fileID` gives it: `Module/File.swift`.
    @usableFromInline let fileID: StaticString
    /// The file as `#filePath` gives it.
    @usableFromInline let filePath: StaticString
    /// The line.
    @usableFromInline let line: UInt
    /// The column.
    @usableFromInline let column: UInt

    /// Creates a location; the defaults capture the caller's.
    ///
    /// - Parameters:
    ///   - fileID: The file as `#fileID` gives it.
    ///   - filePath: The file as `#filePath` gives it.
    ///   - line: The line.
    ///   - column: The column.
    @inlinable
    init(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }
}
