import Foundation
import Testing

@testable import CacheStore

/// Every lock the libraries make is in ``LockCatalogue``, and everything there is made somewhere: a
/// new lock is listed, with what it guards, or this fails.
@Suite(.timeLimit(.minutes(2))) struct LockCatalogueTests {
    /// The package's root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A lock made and stored: `name = Lock()`, `let name: T = Locked<T>(…)`, and the like.
    static func madeLock() throws -> NSRegularExpression {
        try NSRegularExpression(
            pattern:
                #"(\w+)\s*(?::[^=\n]+)?=\s*(?:Lock|ConditionLock|NSLock|NSCondition|NSRecursiveLock|Mutex|Locked)\s*(?:<[^>\n]*>)?\("#
        )
    }

    /// Each lock a library source makes: its file and the name it is stored under.
    static func locksInSources() throws -> Set<LockCatalogue.Entry> {
        let made = try madeLock()
        var found: Set<LockCatalogue.Entry> = []
        for library in ["Sources/CacheStore", "Sources/CacheStoreTesting"] {
            let folder = root.appendingPathComponent(library)
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                let relative = String(file.path.dropFirst(root.path.count + 1))
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//") else { continue }
                    let text = String(line)
                    let range = NSRange(text.startIndex..., in: text)
                    for match in made.matches(in: text, range: range) {
                        let name = Range(match.range(at: 1), in: text).map { String(text[$0]) } ?? ""
                        found.insert(LockCatalogue.Entry(file: relative, name: name))
                    }
                }
            }
        }
        return found
    }

    /// A lock made in a library source and not listed fails here, naming it.
    @Test func everyLockIsListed() throws {
        let found = try Self.locksInSources()
        let unlisted = found.subtracting(LockCatalogue.entries)
        #expect(
            unlisted.isEmpty,
            "locks made but not in LockCatalogue: \(unlisted.map { "\($0.file): \($0.name)" }.sorted())")
    }

    /// A listed lock that no source makes any more fails here: the catalogue stays true.
    @Test func everyListedLockIsMade() throws {
        let found = try Self.locksInSources()
        let stale = LockCatalogue.entries.subtracting(found)
        #expect(
            stale.isEmpty,
            "listed in LockCatalogue but made nowhere: \(stale.map { "\($0.file): \($0.name)" }.sorted())")
    }

    /// The scan finds what it is meant to: a made-up source line with a lock is seen.
    @Test func theScanSeesALock() throws {
        let made = try Self.madeLock()
        for line in ["    private let guardLock = NSLock()", "let state = Locked<Int>(0)", "var x: Lock = Lock()"] {
            #expect(made.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil, "\(line)")
        }
    }
}
