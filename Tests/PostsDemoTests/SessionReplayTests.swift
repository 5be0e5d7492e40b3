import Foundation
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
