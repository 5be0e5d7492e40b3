/// Where in a test a failure belongs: the call site of the assertion that found it.
public struct FailureLocation: Sendable {
    /// The file as `#fileID` gives it: `Module/File.swift`.
    public let fileID: StaticString
    /// The file as `#filePath` gives it.
    public let filePath: StaticString
    /// The line.
    public let line: UInt
    /// The column.
    public let column: UInt

    /// Creates a location; the defaults capture the caller's.
    ///
    /// - Parameters:
    ///   - fileID: The file as `#fileID` gives it.
    ///   - filePath: The file as `#filePath` gives it.
    ///   - line: The line.
    ///   - column: The column.
    public init(
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
