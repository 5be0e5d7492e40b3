import Foundation
import Testing

/// The ```swift blocks of the README and the DocC articles, and where the test suite compiles them.
///
/// A block counts as compiled when a Swift file of `DocumentationCodeBlocks.compiledFolders` holds
/// it: each of its paragraphs (runs of lines between blank lines), in order, line for line, at any
/// one indentation per paragraph. So an article can show declarations and the statements that use
/// them in one block, while the test file puts the statements inside a test function.
struct DocumentationCodeBlocks {
    struct Block {
        /// Where the block is, as `path:line` of its first code line.
        var location: String
        var paragraphs: [[String]]
    }

    /// The package's root folder, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The documents whose Swift code must compile.
    static var documents: [String] {
        ["README.md"] + catalogArticles("Sources/CacheStore/Documentation.docc")
            + catalogArticles("Sources/CacheStoreTesting/Documentation.docc")
    }

    /// The test folders that compile documentation code: this target, and the original CacheStore
    /// README's tests, which the migration article quotes.
    static let compiledFolders = [examplesFolder, "Tests/SeedReadmeSwift5Tests"]

    static func catalogArticles(_ catalog: String) -> [String] {
        let folder = root.appendingPathComponent(catalog)
        let files =
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "md" } ?? []
        return files.map { catalog + "/" + $0.path.dropFirst(folder.path.count + 1) }.sorted()
    }

    static func text(of path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The ```swift blocks of `markdown`, except a `Package.swift` excerpt, which is not a whole file.
    static func swiftBlocks(in markdown: String, path: String) -> [Block] {
        var blocks: [Block] = []
        var current: [String]?
        var start = 0
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if current == nil, line == "```swift" {
                current = []
                start = index + 2
            } else if let lines = current, line == "```" {
                if lines.first != "// Package.swift" {
                    blocks.append(Block(location: "\(path):\(start)", paragraphs: paragraphs(of: lines)))
                }
                current = nil
            } else if current != nil {
                current?.append(String(line))
            }
        }
        return blocks
    }

    static func paragraphs(of lines: [String]) -> [[String]] {
        lines.split(whereSeparator: { $0.trimmingCharacters(in: .whitespaces).isEmpty }).map(Array.init)
    }

    /// The test targets that compile the same code again with main-actor isolation by default, as an app
    /// target of Xcode 26's template does: with approachable concurrency (the template's settings), and
    /// without it. Each holds every block, through symbolic links to the files of
    /// `examplesFolder`: one copy of each example.
    static let mainActorAppFolders = ["Tests/MainActorAppTests", "Tests/MainActorIsolationOnlyTests"]

    /// The folder that holds the one copy of the examples.
    static let examplesFolder = "Tests/DocumentationExamplesTests"

    /// The files of `examplesFolder` that are this target's own tests, not examples the main-actor
    /// targets compile again.
    static let plainTargetOnlyFiles: Set<String> = ["DocumentationCodeBlockTests.swift"]

    /// The Swift files of `folders` (by default, those that compile documentation code), with their lines.
    static func compiledSources(in folders: [String] = compiledFolders) throws -> [(path: String, lines: [String])] {
        try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".swift") }.sorted()
                .map { file in
                    let path = folder + "/" + file
                    return (
                        path,
                        try text(of: path).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    )
                }
        }
    }

    /// Why `block` is in none of `sources`, or `nil` when one of them holds it. The paragraph named
    /// is the first one missing from the file that holds the most of the block.
    static func problem(
        with block: Block, in sources: [(path: String, lines: [String])], folders: [String] = compiledFolders
    ) -> String? {
        let matched = sources.map { matchedParagraphCount(of: block, in: $0.lines) }.max() ?? 0
        guard matched < block.paragraphs.count else { return nil }
        return """
            \(block.location): this Swift block is not compiled: no file of \
            \(folders.joined(separator: ", ")) holds its paragraph starting \
            `\(block.paragraphs[matched][0].trimmingCharacters(in: .whitespaces))` (after the ones before \
            it). Copy the block into an examples test, or make the text match the test.
            """
    }

    /// How many of `block`'s paragraphs `lines` holds, in order, before the first it lacks.
    static func matchedParagraphCount(of block: Block, in lines: [String]) -> Int {
        var next = 0
        for (index, paragraph) in block.paragraphs.enumerated() {
            guard let end = end(of: paragraph, in: lines, from: next) else { return index }
            next = end
        }
        return block.paragraphs.count
    }

    /// The index after `paragraph`'s first occurrence in `lines` at or after `start`, where every line
    /// of it has the same indentation.
    static func end(of paragraph: [String], in lines: [String], from start: Int) -> Int? {
        guard start + paragraph.count <= lines.count else { return nil }
        for index in start...(lines.count - paragraph.count) {
            let line = lines[index]
            guard line.hasSuffix(paragraph[0]) else { continue }
            let indent = line.dropLast(paragraph[0].count)
            guard indent.allSatisfy({ $0 == " " }) else { continue }
            if paragraph.indices.allSatisfy({ lines[index + $0] == indent + paragraph[$0] }) {
                return index + paragraph.count
            }
        }
        return nil
    }
}
