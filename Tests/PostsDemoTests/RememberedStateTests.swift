import CacheStore
import CacheStoreTesting
import Foundation
import PostsFeature
import Testing

extension ExternalProcessTests {
    /// What the demo remembers across launches (the user filter, the page, the selected post), where
    /// (`--state-dir`, `$XDG_STATE_HOME/PostsDemo`, or nowhere with `--no-state`), and the one line
    /// it writes when a remembered file was corrupt.
    @Suite(.timeLimit(.minutes(2))) struct RememberedStateTests {
        /// Serves the runs that fetch once: at once, where the sample source waits 0.6 s.
        let server: LoopbackServer

        init() throws {
            server = try LoopbackServer()
        }

        /// `--once` from the loopback server, and `arguments`.
        func once(_ arguments: String...) -> [String] {
            ["--once", "--url", server.url("posts.json").absoluteString] + arguments
        }

        /// A state folder of the test's own, removed after `body`.
        func inStateFolder(_ body: (URL) throws -> Void) throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("PostsDemoState-\(UUID())")
            defer { try? FileManager.default.removeItem(at: folder) }
            try body(folder)
        }

        /// Each launch shows the page and the post the last one left, whether it quit with `q` or a
        /// terminating signal ended it right after a key (within the save interval).
        @Test(.enabled(if: Tmux.isAvailable, "needs tmux"))
        func theNextLaunchShowsThePageAndThePostTheLastOneLeft() throws {
            try inStateFolder { folder in
                // 100 posts of 10 users, served at once (the sample source waits 0.6 s).
                let posts = server.url("hundred.json").absoluteString
                let command = "'\(DemoRun.binary.path)' --url '\(posts)' --state-dir '\(folder.path)'"
                let first = try Tmux(running: command, rows: 16, columns: 70)
                _ = try first.waitForScreen { $0.contains("page 1/10") }
                try first.send("n")
                _ = try first.waitForScreen { $0.contains("page 2/10") }
                let onPage2 = try first.rows().first { $0.hasPrefix("> #") }
                try first.send("j")
                let selected = try first.waitForScreen { !$0.contains(onPage2 ?? "?") }
                    .split(separator: "\n").first { $0.hasPrefix("> #") }.map(String.init)
                let post = try #require(selected, "a post is selected")
                #expect(post != onPage2)
                try first.send("q")
                #expect(try first.waitUntilExited())

                let next = try Tmux(running: command, rows: 16, columns: 70)
                let screen = try next.waitForScreen { $0.contains("page 2/10") && $0.contains(post) }
                #expect(screen.contains("page 2/10") && screen.contains(post), "\(screen)")
                let demo = try #require(pid_t(try next.pane("pane_pid")))
                try next.send("u")
                _ = try next.waitForScreen { $0.contains("user 1") }
                kill(demo, SIGTERM)
                #expect(try next.waitUntilExited())

                let filtered = try Tmux(running: command, rows: 16, columns: 70)
                let last = try filtered.waitForScreen { $0.contains("10 posts · user 1") }
                #expect(last.contains("10 posts · user 1"), "saved when SIGTERM ended it:\n\(last)")
                try filtered.send("q")
                #expect(try filtered.waitUntilExited())
            }
        }

        /// A state folder that is a file: each key's restore, and the save at exit, are reported, one
        /// line each, and the demo works all the same.
        @Test func aStateFolderThatIsAFileIsReportedAndTheDemoGoesOn() throws {
            try inStateFolder { folder in
                try Data("not a folder".utf8).write(to: folder)
                let run = try DemoRun(once("--state-dir", folder.path))
                #expect(run.status == 0)
                #expect(run.output.split(separator: "\n").count == 3)
                let lines = run.errors.split(separator: "\n")
                #expect(lines.count >= 4, "three restores and the save at exit:\n\(run.errors)")
                #expect(lines.allSatisfy { $0.hasPrefix("PostsDemo: the key .") && $0.contains("could not be used") })
                #expect(lines.contains { $0.contains("could not make the folder") }, "the save at exit")
            }
        }

        @Test func aCorruptFileIsSetAsideWithOneLineOnStandardError() throws {
            try inStateFolder { folder in
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let corrupt = Data("user 3, I think".utf8)
                try corrupt.write(to: folder.appendingPathComponent("userFilter.json"))
                let run = try DemoRun(once("--state-dir", folder.path))
                #expect(run.status == 0)
                #expect(run.output.split(separator: "\n").count == 3)
                let lines = run.errors.split(separator: "\n")
                #expect(lines.count == 1, "\(run.errors)")
                #expect(
                    lines.first?.hasPrefix("PostsDemo: the key .userFilter: \(folder.path)/userFilter.json is corrupt")
                        == true)
                let setAside = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                    .filter { $0.hasPrefix("userFilter.json.corrupt-") }
                #expect(setAside.count == 1)
                #expect(lines.first?.hasSuffix("moved to \(setAside.first ?? "?"), the key holds its default") == true)
                #expect(try Data(contentsOf: folder.appendingPathComponent(setAside.first ?? "?")) == corrupt)
            }
        }

        @Test func theDefaultFolderIsUnderXDGStateHome() throws {
            let stateHome = DemoStateHome()
            defer { stateHome.remove() }
            let run = try Subprocess.run(DemoRun.binary.path, once(), environment: stateHome.environment)
            #expect(run.status == 0)
            let files = try FileManager.default.contentsOfDirectory(
                atPath: stateHome.url.appendingPathComponent("PostsDemo").path)
            #expect(Set(files).isSuperset(of: ["top.json", "selected.json"]), "\(files)")
        }

        @Test func noStateWritesNothing() throws {
            let stateHome = DemoStateHome()
            defer { stateHome.remove() }
            let run = try Subprocess.run(DemoRun.binary.path, once("--no-state"), environment: stateHome.environment)
            #expect(run.status == 0)
            #expect(!FileManager.default.fileExists(atPath: stateHome.url.path))
        }

        @Test(arguments: [
            (["--state-dir"], "--state-dir needs a folder"),
            (["--state-dir", "--once"], "--state-dir needs a folder"),
            (["--no-state", "--state-dir", "/tmp/x"], "--no-state and --state-dir cannot go together"),
        ])
        func badStateOptionsAreRefused(arguments: [String], message: String) throws {
            let run = try DemoRun(arguments)
            #expect(run.status == 64)
            #expect(run.errors.hasPrefix("PostsDemo: \(message)\n"), "\(run.errors)")
        }
    }
}

/// The handler's side of remembering: the first posts of a launch show the restored position.
@Suite(.timeLimit(.minutes(2))) struct RememberedPositionTests {
    let posts = (1...30).map { Post(id: $0, userId: 1, title: "\($0)", body: "") }

    /// A saved position the demo never writes (another version's, or a hand-edited file): the screen
    /// shows a page of the posts, and no key overflows, before the posts came or after.
    @Test(arguments: [-5, Int.max, Int.min])
    func aSavedPositionOutsideThePostsShowsAPage(position: Int) {
        let before = Store(
            initialValues: [.pageSize: 10, .top: position, .selected: position], actionHandler: postsHandler,
            dependency: client(.success(posts)))
        for action in [PostsAction.selectNext, .selectPrevious, .nextPage, .previousPage, .selectLast] {
            before.handle(action: action)
        }
        #expect(before.postsOnPage.isEmpty && before.page == 0)

        let after = Store(
            initialValues: [.pageSize: 10, .top: position, .selected: position], actionHandler: postsHandler,
            dependency: client(.success(posts)))
        after.handle(action: .loaded(.success(posts)))
        #expect(!after.postsOnPage.isEmpty)
        #expect((0..<3).contains(after.page))
        #expect(after.selectedPost != nil)
        for action in [PostsAction.selectNext, .nextPage, .selectLast, .previousPage, .selectFirst] {
            after.handle(action: action)
        }
        #expect(after.selectedPost?.id == 1)
    }

    @Test func theFirstPostsOfALaunchShowThePositionTheLastLaunchLeft() async {
        let store = TestStore(
            initialValues: [.pageSize: 10, .top: 10, .selected: 12], actionHandler: postsHandler,
            dependency: client(.success(posts)))
        store.send(.setPageSize(5)) { $0.set(value: 5, forKey: .pageSize) }  // no posts yet: the position waits
        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        await store.receive(.loaded(.success(posts))) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: posts, forKey: .posts)
        }
        #expect(store.store.selectedPost?.id == 13)
        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        await store.receive(.loaded(.success(posts))) { state in  // a refresh shows the top
            state.set(value: false, forKey: .isLoading)
            state.set(value: 0, forKey: .top)
            state.set(value: 0, forKey: .selected)
        }
    }

    @Test func aPositionPastTheLastPostIsBroughtOntoIt() async {
        let store = TestStore(
            initialValues: [.pageSize: 10, .top: 90, .selected: 95], actionHandler: postsHandler,
            dependency: client(.success(posts)))
        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        await store.receive(.loaded(.success(posts))) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: posts, forKey: .posts)
            state.set(value: 29, forKey: .top)
            state.set(value: 29, forKey: .selected)
        }
    }
}
