import CacheStore
import PostsFeature
import Testing

private func screen(_ values: [PostsKey: Any], source: String = "test") -> PostsScreen {
    let store = Store(
        initialValues: values, actionHandler: appHandler,
        dependency: PostsClient(sourceDescription: source) { .success([]) })
    return PostsScreen(store: store, source: source)
}

private let wide = [
    Post(id: 1, userId: 1, title: "東京大阪京都札幌名古屋横浜", body: "本文です。" + String(repeating: "長い本文。", count: 8)),
    Post(id: 2, userId: 1, title: "\u{202E}gnp.exe", body: ""),
]

@Suite(.timeLimit(.minutes(2))) struct PostsScreenTests {
    @Test func theScreenFitsItsWidthAndSanitizesTitles() {
        let posts = [Post(id: 1, userId: 1, title: "\u{1B}[31mA long title that will not fit", body: "")]
        let lines = screen([.posts: posts, .pageSize: 2]).lines(width: 24, height: 7, spinnerFrame: 0)
        #expect(
            lines == [
                "CacheStore posts — test",
                String(repeating: "─", count: 24),
                "> #1  A long title that…",
                "",
                String(repeating: "─", count: 24),
                "page 1/1 · 1 posts · al…",
                "r refresh · c cancel · …",
            ])
    }

    @Test func wideTitlesAreCutByCellsAndEveryLineFits() {
        for width in [1, 2, 5, 9, 10, 21, 60] {
            for height in [1, 2, 3, 6, 20] {
                let lines = screen([.posts: wide, .pageSize: PostsScreen.listRows(height: height)])
                    .lines(width: width, height: height, spinnerFrame: 0)
                #expect(lines.count == height)
                #expect(lines.allSatisfy { TerminalText.width(of: $0) <= width }, "\(width)x\(height): \(lines)")
            }
        }
        let lines = screen([.posts: wide, .pageSize: 2]).lines(width: 21, height: 7, spinnerFrame: 0)
        #expect(lines[2] == "> #1  東京大阪京都札…")
        #expect(lines[3] == "  #2  gnp.exe")
    }

    @Test func aOneRowWindowShowsTheStatusAndTwoRowsTheKeysToo() {
        let values: [PostsKey: Any] = [.posts: wide, .pageSize: 1]
        #expect(screen(values).lines(width: 40, height: 1, spinnerFrame: 0) == ["page 1/2 · 2 posts · all users"])
        #expect(screen(values).lines(width: 40, height: 2, spinnerFrame: 0)[1].hasPrefix("r refresh"))
        #expect(screen(values).lines(width: 40, height: 3, spinnerFrame: 0)[0].hasPrefix("> #1  東京"))
    }

    @Test func loadingAndErrorStatesKeepThePageLine() {
        var screen = screen([.isLoading: true], source: "x")
        #expect(screen.lines(width: 80, height: 8, spinnerFrame: 1).last == "⠙ Loading x…")
        screen.isLoading = false
        screen.error = .http(status: 500, host: "example.com")
        let lines = screen.lines(width: 80, height: 8, spinnerFrame: 0)
        #expect(lines.suffix(2) == ["page 1/1 · 0 posts · all users", "error: example.com answered HTTP 500"])
        #expect(lines[2] == "(no posts: the fetch failed)")
    }

    @Test func aFailedRefreshKeepsThePostsAndAnErrorTooLongCanBeReadInFullWithQuestionMark() {
        let error = PostsError.response(host: "posts.example.com", reason: "the connection closed mid-response")
        let failed = screen([.posts: wide, .pageSize: 2, .error: error, .userFilter: 1])
        let lines = failed.lines(width: 40, height: 7, spinnerFrame: 0)
        #expect(lines[2].hasPrefix("> #1"))
        #expect(lines[5] == "page 1/1 · 2 posts · user 1")
        #expect(lines[6] == "error: posts.example.com answe… · ? more")
        #expect(TerminalText.width(of: lines[6]) == 40)

        let help = screen([.posts: wide, .error: error, .view: PostsView.help(line: 0)])
        let text = help.lines(width: 40, height: 30, spinnerFrame: 0).joined(separator: "\n")
        #expect(text.contains("Last error:\nposts.example.com answered, but the\nconnection closed mid-response"))
        #expect(help.lastScrollLine(width: 40, height: 30) == 0)
        #expect(help.lastScrollLine(width: 40, height: 8) == 17 - 3)  // keys 13 lines, blank, 3 of error; 3 rows
    }

    @Test func aCancelledFetchSaysSo() {
        let empty = screen([.wasCancelled: true]).lines(width: 60, height: 7, spinnerFrame: 0)
        #expect(empty[2] == "(fetch cancelled)")
        #expect(empty.last == "fetch cancelled · r fetch again")
        let kept = screen([.posts: wide, .wasCancelled: true]).lines(width: 60, height: 7, spinnerFrame: 0)
        #expect(kept[2].hasPrefix("> #1"))
        #expect(kept.last == "fetch cancelled · r fetch again")
        #expect(screen([.posts: [Post]()]).lines(width: 60, height: 7, spinnerFrame: 0)[2] == "(no posts)")
    }

    @Test func aPostIsReadWrappedAndScrolled() {
        let reading = screen([.posts: wide, .view: PostsView.post(line: 0)])
        let lines = reading.lines(width: 20, height: 8, spinnerFrame: 0)
        #expect(lines[0] == "#1  東京大阪京都札…")
        #expect(lines[2...4] == ["#1  東京大阪京都札幌", "名古屋横浜", ""])
        #expect(lines[6] == "post 1 of 2 · lines…")
        let last = reading.lastScrollLine(width: 20, height: 8)
        #expect(last == 10 - 3)  // title 2 lines, blank, body 5, blank, author; 3 rows
        var end = reading
        end.view = .post(line: last)
        #expect(end.lines(width: 20, height: 8, spinnerFrame: 0)[2...4] == ["長い本文。", "", "user 1"])
        end.view = .post(line: 99)  // past the end shows the end
        #expect(end.lines(width: 20, height: 8, spinnerFrame: 0)[4] == "user 1")
    }
}
