import CacheStore
import Foundation
import PostsFeature

/// `--once`, or standard output not a terminal: one fetch, the posts one a line, then exit.
enum OnceRun {
    /// Fetches once and prints `#ID TITLE` lines, or the reason on standard error.
    ///
    /// - Returns: The exit status: 0 on success, 1 when the fetch failed.
    static func run(_ store: Store<PostsKey, PostsAction, PostsClient>) async -> Int32 {
        var changes = store.changes.makeAsyncIterator()
        store.handle(action: .load)
        while store.isLoading {
            guard await changes.next() != nil else { break }
        }
        if let error = store.error {
            FileHandle.standardError.write(Data("error: \(TerminalText.sanitized(error.description))\n".utf8))
            return 1
        }
        let lines = store.posts.map { "#\($0.id) \(TerminalText.sanitized($0.title))\n" }
        FileHandle.standardOutput.write(Data(lines.joined().utf8))
        return 0
    }
}
