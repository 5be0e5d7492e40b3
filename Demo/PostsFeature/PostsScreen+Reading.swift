/// The screens read by scrolling: a post, and the help.
extension PostsScreen {
    /// The keys, one a line.
    public static let help = [
        "Up/Down j/k     select a post",
        "Enter           read the selected post",
        "n/p PgDn/PgUp   next/previous page",
        "g/G Home/End    first/last post",
        "u               next user, then all users",
        "r               refresh",
        "c               cancel the fetch in flight",
        "Ctrl-L          redraw the screen",
        "[ ]             step through a recording",
        "?               this help",
        "q               quit (Esc or q: back)",
    ]

    /// The rows shown from `line`, and where they are in the text.
    func reading(width: Int, height: Int, from line: Int, post: Bool) -> (lines: [String], position: String) {
        let text = readingText(width: width, post: post)
        let rows = Self.listRows(height: height)
        let first = min(line, max(0, text.count - rows))
        let shown = Array(text.dropFirst(first).prefix(rows))
        let position = "lines \(first + 1)–\(first + shown.count) of \(text.count)"
        return (shown, post ? "post \(selected + 1) of \(visibleCount) · \(position)" : position)
    }

    /// The whole text, wrapped to `width`: the post's title, body and author, or the keys and the
    /// last error in full.
    func readingText(width: Int, post: Bool) -> [String] {
        func wrapped(_ text: String) -> [String] { TerminalText.wrapped(TerminalText.sanitized(text), to: width) }
        guard post else {
            let keys = Self.help.flatMap { TerminalText.wrapped($0, to: width) }
            guard let error else { return keys }
            return keys + ["", "Last error:"] + wrapped(error.description)
        }
        guard let post = selectedPost else { return [] }
        return wrapped("#\(post.id)  \(post.title)") + [""] + wrapped(post.body) + ["", "user \(post.userId)"]
    }
}
