import CacheStore
import Foundation
import PostsFeature
import Testing

extension ExternalProcessTests {
    /// `--record` and `--replay` as a person uses them: a session recorded against a server, shown
    /// again once the server is gone, and travelled through with `[` and `]`.
    @Suite(.timeLimit(.minutes(2))) struct SessionReplayTests {
        /// A session recorded in a terminal (travelling back and returning to live on the way) replays
        /// with the network gone: the same screen, whose steps `[` and `]` go back to; `--once`
        /// prints it.
        @Test(.enabled(if: Tmux.isAvailable, "needs tmux"))
        func aRecordedSessionReplaysOfflineToTheSameScreen() throws {
            try inSessionFile { file in
                var server: LoopbackServer? = try LoopbackServer()
                let posts = try #require(server).url("hundred.json").absoluteString
                let demo = "'\(DemoRun.binary.path)'"
                let recording = try Tmux(
                    running: "\(demo) --no-state --url '\(posts)' --record '\(file.path)'", rows: 16, columns: 70)
                defer { recording.close() }
                _ = try recording.waitForScreen { $0.contains("page 1/10") }
                try recording.send("n")
                _ = try recording.waitForScreen { $0.contains("page 2/10") }
                try recording.send("j")
                _ = try recording.waitForScreen { $0.contains("> #13") }
                // Steps: the page size fitted, load, loaded, n, j. One back is the selection before j.
                try recording.send("[")
                #expect(try recording.waitForScreen { $0.contains("step 4 of 5") }.contains("> #12"))
                try recording.send("n")  // waits for the live screen: not handled
                try recording.send("Escape")
                let live = try recording.waitForScreen { $0.contains("r refresh") }
                #expect(live.contains("> #13") && live.contains("page 2/10"), "\(live)")
                let recorded = try recording.rows()
                try recording.send("q")
                #expect(try recording.waitUntilExited())
                server = nil  // stops it: nothing answers at the recorded URL now

                let replay = try Tmux(running: "\(demo) --replay '\(file.path)'", rows: 16, columns: 70)
                defer { replay.close() }
                let replayed = try replay.waitForScreen { $0.contains("step 5 of 5") }
                #expect(try replay.rows().dropLast() == recorded.dropLast(), "\(replayed)")
                try replay.send("[")
                #expect(try replay.waitForScreen { $0.contains("step 4 of 5") }.contains("> #12"))
                try replay.send("]")
                #expect(try replay.waitForScreen { $0.contains("step 5 of 5") }.contains("> #13"))
                try replay.send("q")
                #expect(try replay.waitUntilExited())

                let printed = try DemoRun(["--replay", file.path, "--once"])
                #expect(printed.status == 0)
                #expect(printed.errors.isEmpty)
                // 80 columns where the terminal had 70: the rules are longer, every other row the same.
                let rows = printed.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(
                    String.init)
                #expect(rows.filter { !$0.hasPrefix("─") } == recorded.filter { !$0.hasPrefix("─") })
            }
        }

        /// A file that is not a session this demo can show is one line on standard error and the
        /// status of a bad option; so is asking to record and replay at once.
        @Test func aFileThatCannotBeReplayedIsOneLine() throws {
            try inSessionFile { file in
                let missing = try DemoRun(["--replay", file.path])
                #expect(missing.status == 64)
                #expect(missing.errors.hasPrefix("PostsDemo: cannot read the journal \(file.path): "))
                #expect(missing.errors.split(separator: "\n").count == 1, "\(missing.errors)")

                try Data("#1 first post\n".utf8).write(to: file)
                let notAJournal = try DemoRun(["--replay", file.path, "--once"])
                #expect(notAJournal.status == 64)
                #expect(notAJournal.errors == "PostsDemo: \(file.path) is not a CacheStore journal\n")

                try Data("CacheStore journal 99\n".utf8).write(to: file)
                let newer = try DemoRun(["--replay", file.path])
                #expect(newer.status == 64)
                #expect(newer.errors.hasPrefix("PostsDemo: the journal is of format 99, later than this"))
                #expect(newer.output.isEmpty)

                let both = try DemoRun(["--record", file.path, "--replay", file.path])
                #expect(both.status == 64)
                #expect(both.errors.hasPrefix("PostsDemo: --record and --replay cannot go together\n\nusage:"))
            }
        }
    }
}

extension ExternalProcessTests.SessionReplayTests {
    /// `--replay` of a FIFO (`--replay <(cat session.journal)`, a named pipe) says why it cannot be
    /// shown, or shows it: it does not wait forever for a writer.
    @Test func aFIFOToReplayIsAnswered() throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("PostsDemoSession-\(UUID()).fifo")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        defer { unlink(fifo.path) }
        let demo = try Subprocess(DemoRun.binary.path, ["--replay", fifo.path, "--once"], capturing: false)
        var status: Int32 = 0
        var exited = false
        for _ in 0..<100 where !exited {
            exited = waitpid(demo.pid, &status, WNOHANG) == demo.pid
            if !exited { Thread.sleep(forTimeInterval: 0.05) }
        }
        if !exited {
            Issue.record("PostsDemo --replay FIFO --once still runs after 5 s")
            demo.kill()
        }
    }

    /// A journal of the posts screen whose page size is 0, negative or `Int.max` (made by a program
    /// of the demo's types, or edited) replays as "not a session to show", or shows it: the screen's
    /// arithmetic on the recorded page size (`/ pageSize`, `pageSize + chromeLines`) traps instead.
    @Test(arguments: [0, -3, Int.max]) func aRecordedPageSizeOutOfRangeDoesNotTrapTheReplay(pageSize: Int) throws {
        try inSessionFile { file in
            let store = Store(
                initialValues: [.pageSize: pageSize, .source: "test"], actionHandler: appHandler,
                dependency: client(.success([])))
            let recorder = try store.startRecording(postsJournal(file: file))
            store.handle(action: .list(.loaded(.success(threePosts))))
            recorder.stop()
            let printed = try DemoRun(["--replay", file.path, "--once"])
            #expect([0, 64].contains(printed.status), "status \(printed.status): \(printed.errors)")
        }
    }

    /// The same for a recorded post view scrolled to a negative line (`dropFirst(-1)` traps) and a
    /// recorded selection of `Int.max` while a post is read (`selected + 1` overflows).
    @Test(arguments: [(line: -1, selected: 0), (line: 0, selected: Int.max)])
    func aRecordedReadingPositionOutOfRangeDoesNotTrapTheReplay(line: Int, selected: Int) throws {
        try inSessionFile { file in
            let store = Store(
                initialValues: [
                    .pageSize: 10, .source: "test", .view: PostsView.post(line: line), .selected: selected,
                ],
                actionHandler: appHandler, dependency: client(.success([])))
            let recorder = try store.startRecording(postsJournal(file: file))
            store.handle(action: .list(.setPageSize(10)))  // before any post: nothing clamps the selection
            recorder.stop()
            let printed = try DemoRun(["--replay", file.path, "--once"])
            #expect([0, 64].contains(printed.status), "status \(printed.status): \(printed.errors)")
        }
    }

    /// `--record FILE` where FILE is one of the remembered-state files: the state saved after the
    /// fetch renames itself over the journal, so the session is lost and nothing says so (status 0,
    /// no message), and the next `--replay FILE` says it is not a journal.
    @Test func recordingOntoARememberedStateFileKeepsTheSessionOrSaysWhy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("PostsDemoTests-state-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("top.json")
        #expect(try DemoRun(["--state-dir", folder.path, "--once"]).status == 0)  // a launch before: top.json is there
        let recording = try DemoRun(["--state-dir", folder.path, "--once", "--record", file.path])
        let replay = try DemoRun(["--replay", file.path, "--once"])
        #expect(
            recording.status != 0 || replay.status == 0,
            "recorded with status \(recording.status) and \"\(recording.errors)\"; replayed: \(replay.errors)")
    }

}
