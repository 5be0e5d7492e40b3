import CacheStore
import Foundation
import PostsFeature

/// `--once`, or standard output not a terminal: one fetch, the posts one a line, then exit.
enum OnceRun {
    /// Fetches once and prints `#ID TITLE` lines, or the reason on standard error.
    ///
    /// - Returns: The exit status: 0 on success, 1 when the fetch failed or the output could not be written.
    static func run(_ store: Store<PostsKey, AppAction, PostsClient>) async -> Int32 {
        var changes = store.changes.makeAsyncIterator()
        store.handle(action: .list(.load))
        while store.isLoading {
            guard await changes.next() != nil else { break }
        }
        if let error = store.error {
            StandardOutput.report("error: \(TerminalText.sanitized(error.description))")
            return 1
        }
        let lines = store.posts.map { "#\($0.id) \(TerminalText.sanitized($0.title))\n" }
        do {
            try StandardOutput.write(lines.joined())
        } catch {
            StandardOutput.report("PostsDemo: cannot write the output: \(error)")
            return 1
        }
        return 0
    }
}
