import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct DocumentationCodeBlockTests {
    @Test func everySwiftBlockOfTheDocumentationIsCompiledByATest() throws {
        let sources = try DocumentationCodeBlocks.compiledSources()
        var checked = 0
        for document in DocumentationCodeBlocks.documents {
            let blocks = DocumentationCodeBlocks.swiftBlocks(
                in: try DocumentationCodeBlocks.text(of: document), path: document)
            for block in blocks {
                checked += 1
                if let problem = DocumentationCodeBlocks.problem(with: block, in: sources) {
                    Issue.record(Comment(rawValue: problem))
                }
            }
        }
        // Guards against checking nothing: the README and eight articles have more blocks than this.
        #expect(checked >= 30)
    }

    /// In both main-actor app targets, every block of the README and of the articles, the migration
    /// article's quote of the original README's tests included.
    @Test(arguments: DocumentationCodeBlocks.mainActorAppFolders)
    func everySwiftBlockOfTheDocumentationIsCompiledInAMainActorApp(folder: String) throws {
        let sources = try DocumentationCodeBlocks.compiledSources(in: [folder])
        var checked = 0
        for document in DocumentationCodeBlocks.documents {
            let blocks = DocumentationCodeBlocks.swiftBlocks(
                in: try DocumentationCodeBlocks.text(of: document), path: document)
            for block in blocks {
                checked += 1
                if let problem = DocumentationCodeBlocks.problem(with: block, in: sources, folders: [folder]) {
                    Issue.record(Comment(rawValue: problem))
                }
            }
        }
        #expect(checked >= 30)
    }

    /// The main-actor targets compile the examples' one copy: each of their files is a symbolic link,
    /// to an example file or to a main-actor test of `MainActorAppTests`, and every example file is
    /// linked from each (a copy would drift from the text unseen, or leave an example out).
    @Test(arguments: DocumentationCodeBlocks.mainActorAppFolders)
    func aMainActorAppLinksEveryExampleAndCopiesNone(folder: String) throws {
        let files = FileManager.default
        let examples = try files.contentsOfDirectory(
            atPath: DocumentationCodeBlocks.root.appendingPathComponent(DocumentationCodeBlocks.examplesFolder).path
        ).filter { $0.hasSuffix(".swift") && !DocumentationCodeBlocks.plainTargetOnlyFiles.contains($0) }
        let folderURL = DocumentationCodeBlocks.root.appendingPathComponent(folder)
        var linked: Set<String> = []
        for file in try files.contentsOfDirectory(atPath: folderURL.path) where file.hasSuffix(".swift") {
            let path = folderURL.appendingPathComponent(file).path
            guard let destination = try? files.destinationOfSymbolicLink(atPath: path) else {
                // The main-actor app's own tests live in the first main-actor target, linked from the others.
                if folder != DocumentationCodeBlocks.mainActorAppFolders[0] {
                    Issue.record("\(folder)/\(file) is a copy: link it to the file it copies instead")
                }
                continue
            }
            if destination == "../DocumentationExamplesTests/\(file)" { linked.insert(file) }
        }
        #expect(Set(examples).subtracting(linked).sorted() == [], "not linked from \(folder)")
    }

    /// Article code wider than 80 columns scrolls sideways on a 1280-pixel screen. (Quoted failure
    /// messages keep their real width: tests compare them with what the library reports.)
    @Test func everySwiftLineOfTheArticlesFitsIn80Columns() throws {
        for article in DocumentationCodeBlocks.documents where article != "README.md" {
            let text = try DocumentationCodeBlocks.text(of: article)
            for block in DocumentationCodeBlocks.swiftBlocks(in: text, path: article) {
                for line in block.paragraphs.joined() where line.count > 80 {
                    Issue.record("\(block.location): a line is \(line.count) columns wide: \(line)")
                }
            }
        }
    }

    @Test func everyArticleIsFound() {
        #expect(
            DocumentationCodeBlocks.documents == [
                "README.md",
                "Sources/CacheStore/Documentation.docc/CacheStore.md",
                "Sources/CacheStore/Documentation.docc/ComposingFeatures.md",
                "Sources/CacheStore/Documentation.docc/DebugOutputAndValueComparison.md",
                "Sources/CacheStore/Documentation.docc/EffectsAndCancellation.md",
                "Sources/CacheStore/Documentation.docc/GettingStarted.md",
                "Sources/CacheStore/Documentation.docc/MigratingFromTheOriginalCacheStore.md",
                "Sources/CacheStore/Documentation.docc/Observation.md",
                "Sources/CacheStore/Documentation.docc/PersistingKeys.md",
                "Sources/CacheStore/Documentation.docc/RecordingAndReplaying.md",
                "Sources/CacheStore/Documentation.docc/Scoping.md",
                "Sources/CacheStore/Documentation.docc/Threading.md",
                "Sources/CacheStoreTesting/Documentation.docc/CacheStoreTesting.md",
                "Sources/CacheStoreTesting/Documentation.docc/TestingWithTestStore.md",
            ])
    }

    @Test func aBlockMatchesParagraphByParagraphAtItsOwnIndentation() {
        let markdown = """
            Text.

            ```swift
            enum Key { case a }

            let value = 1
            print(value)
            ```
            """
        let blocks = DocumentationCodeBlocks.swiftBlocks(in: markdown, path: "Doc.md")
        #expect(blocks.map(\.location) == ["Doc.md:4"])
        let source = ["import X", "enum Key { case a }", "func test() {", "    let value = 1", "    print(value)", "}"]
        #expect(DocumentationCodeBlocks.problem(with: blocks[0], in: [("Test.swift", source)]) == nil)
    }

    @Test func aBlockThatDriftedFromTheTestIsReportedWithItsLocation() {
        let block = DocumentationCodeBlocks.Block(
            location: "Doc.md:4", paragraphs: [["enum Key { case a }"], ["let value = 2", "print(value)"]])
        let source = ["enum Key { case a }", "func test() {", "    let value = 1", "    print(value)", "}"]
        #expect(
            DocumentationCodeBlocks.problem(with: block, in: [("Test.swift", source)])
                == """
                Doc.md:4: this Swift block is not compiled: no file of Tests/DocumentationExamplesTests, \
                Tests/SeedReadmeSwift5Tests holds its paragraph starting `let value = 2` (after the ones \
                before it). Copy the block into an examples test, or make the text match the test.
                """)
    }

    @Test func linesOfOneParagraphMustShareTheirIndentation() {
        let block = DocumentationCodeBlocks.Block(location: "Doc.md:1", paragraphs: [["if ok {", "    run()", "}"]])
        let misindented = ["    if ok {", "    run()", "    }"]
        #expect(DocumentationCodeBlocks.problem(with: block, in: [("Test.swift", misindented)]) != nil)
        #expect(
            DocumentationCodeBlocks.problem(
                with: block, in: [("Test.swift", ["    if ok {", "        run()", "    }"])])
                == nil)
    }

    @Test func aPackageManifestExcerptIsNotAFileToCompile() {
        let markdown = "```swift\n// Package.swift\n.package(url: \"x\", branch: \"main\"),\n```"
        #expect(DocumentationCodeBlocks.swiftBlocks(in: markdown, path: "README.md").isEmpty)
    }
}
