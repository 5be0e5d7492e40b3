import Foundation
import Testing

extension ExternalProcessTests {
    /// What a person sees in a real terminal (tmux): wide text, suspend, resize, keys, and the
    /// terminal left clean however the program ends.
    @Suite(.enabled(if: Tmux.isAvailable, "needs tmux"), .timeLimit(.minutes(2)))
    struct TerminalScreenTests {
        let server: LoopbackServer

        init() throws {
            server = try LoopbackServer()
        }

        /// The demo run from the shell, then the shell says how it ended.
        static func commandLine(_ arguments: [String] = []) -> String {
            ([DemoRun.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ") + "; echo exited=$?"
        }

        @Test func wideTitlesAreCutToTheWindowAndNothingScrollsOff() throws {
            let command = "\(DemoRun.binary.path) --url \(server.url("cjk.json").absoluteString)"
            let tmux = try Tmux(running: command, rows: 20, columns: 60)
            defer { tmux.close() }
            let screen = try tmux.waitForScreen { $0.contains("40 posts") }
            let rows = try tmux.rows()
            #expect(rows.first?.hasPrefix("CacheStore posts") == true, "\(screen)")
            let listed = rows.filter { $0.dropFirst(2).hasPrefix("#") }
            #expect(listed.count == 20 - 5, "\(screen)")
            #expect(listed.first?.hasPrefix("> #1  ") == true)
            #expect(listed.allSatisfy { $0.hasSuffix("…") })
            #expect(rows.contains { $0.hasPrefix("page 1/3 · 40 posts · all users") })
        }

        @Test func ctrlZGivesTheShellACleanTerminalAndFgRedraws() throws {
            let tmux = try Tmux(shellRows: 16, columns: 70)
            defer { tmux.close() }
            try tmux.type(DemoRun.binary.path)
            _ = try tmux.waitForScreen { $0.contains("page 1/10") }
            try tmux.send("C-z")
            let stopped = try tmux.waitForScreen { $0.contains("Stopped") }
            #expect(stopped.contains("Stopped"))
            #expect(try tmux.pane("alternate_on") == "0")
            #expect(try tmux.pane("cursor_flag") == "1")

            try tmux.type("fg")
            let back = try tmux.waitForScreen { $0.contains("page 1/10") }
            #expect(back.contains("#1  "))
            #expect(try tmux.pane("alternate_on") == "1")
            try tmux.send("n")
            #expect(try tmux.waitForScreen { $0.contains("page 2/10") }.contains("#12  "))
            try tmux.send("q")
            let shell = "$ fg\n\(DemoRun.binary.path)\n$"
            let after = try tmux.waitForScreen { $0.contains(shell) }
            #expect(after.contains(shell), "\(after)")
            #expect(try tmux.pane("alternate_on") == "0")
        }

        @Test func aResizeRedrawsAtOnceAndKeepsTheFirstPostInView() throws {
            let tmux = try Tmux(running: DemoRun.binary.path, rows: 16, columns: 70)
            defer { tmux.close() }
            _ = try tmux.waitForScreen { $0.contains("page 1/10") }
            try tmux.send("n")
            _ = try tmux.waitForScreen { $0.contains("page 2/10") }

            try tmux.resize(rows: 10, columns: 50)
            let resized = try tmux.waitForScreen { $0.contains("page 3/") }
            let rows = try tmux.rows()
            #expect(rows.count == 10)
            #expect(rows[2].hasPrefix("> #12  "), "\(resized)")
            #expect(rows[8].hasPrefix("page 3/20 · 100 posts"), "\(resized)")
            #expect(rows.allSatisfy { $0.count <= 50 })

            try tmux.send("n")
            #expect(try tmux.waitForScreen { $0.contains("page 4/20") }.contains("> #17  "))
        }

        @Test func noFrameIsDrawnAfterQuittingOnFastKeys() throws {
            let tmux = try Tmux(shellRows: 16, columns: 70)
            defer { tmux.close() }
            // Each run from the top, remembering nothing of the one before; 100 posts served at once.
            let arguments = ["--no-state", "--url", server.url("hundred.json").absoluteString]
            for _ in 0..<6 {
                try tmux.type("clear; " + Self.commandLine(arguments))
                _ = try tmux.waitForScreen { $0.contains("page 1/10") }
                try tmux.send("-l", "nnnnnpppnnuuuq")
                let after = try tmux.waitForScreen { $0.contains("exited=0") }
                #expect(after.contains("exited=0"))
                #expect(!after.contains("page ") && !after.contains("refresh"), "a frame after quitting:\n\(after)")
            }
        }

        @Test func ctrlBackslashRestoresTheTerminal() throws {
            let tmux = try Tmux(shellRows: 16, columns: 70)
            defer { tmux.close() }
            try tmux.type(Self.commandLine())
            _ = try tmux.waitForScreen { $0.contains("page 1/10") }
            try tmux.send("C-\\")
            let after = try tmux.waitForScreen { $0.range(of: #"exited=[0-9]"#, options: .regularExpression) != nil }
            #expect(after.contains("exited=131"))
            #expect(try tmux.pane("alternate_on") == "0")
            #expect(try tmux.pane("cursor_flag") == "1")
        }

        @Test func aSpinnerTickRepaintsOnlyWhatChangedInsideSynchronizedOutput() throws {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID()).out")
            defer { try? FileManager.default.removeItem(at: output) }
            let command = "\(DemoRun.binary.path) --url \(server.url("slow/posts.json").absoluteString)"
            let tmux = try Tmux(running: command, rows: 16, columns: 70)
            defer { tmux.close() }
            try tmux.recordOutput(to: output)
            _ = try tmux.waitForScreen { $0.contains("first post") }
            let written = try String(contentsOf: output, encoding: .utf8)
            #expect(written.contains("Loading"))
            #expect(written.components(separatedBy: "\u{1B}[2J").count - 1 <= 1)
            #expect(written.contains("\u{1B}[?2026h"))
            #expect(
                written.components(separatedBy: "\u{1B}[?2026h").count
                    == written.components(separatedBy: "\u{1B}[?2026l").count)
        }

        @Test func theKeysPeopleExpect() throws {
            let tmux = try Tmux(running: DemoRun.binary.path, rows: 16, columns: 70)
            defer { tmux.close() }
            _ = try tmux.waitForScreen { $0.contains("page 1/10") }
            try tmux.send("Down", "Down")
            #expect(try tmux.waitForScreen { $0.contains("> #3  ") }.contains("> #3  "))
            try tmux.send("NPage")
            #expect(try tmux.waitForScreen { $0.contains("> #14  ") }.contains("page 2/10"))
            try tmux.send("PPage", "Up")
            #expect(try tmux.waitForScreen { $0.contains("> #2  ") }.contains("page 1/10"))
            try tmux.send("End")
            #expect(try tmux.waitForScreen { $0.contains("> #100  ") }.contains("page 10/10"))
            try tmux.send("Home")
            #expect(try tmux.waitForScreen { $0.contains("> #1  ") }.contains("page 1/10"))
            try tmux.send("G")
            _ = try tmux.waitForScreen { $0.contains("> #100  ") }
            try tmux.send("g")
            _ = try tmux.waitForScreen { $0.contains("> #1  ") }

            try tmux.send("?")
            let help = try tmux.waitForScreen { $0.contains("Esc or q back") }
            #expect(help.contains("read the selected post"))
            try tmux.send("q")
            _ = try tmux.waitForScreen { $0.contains("page 1/10") }

            // Something else writes over the screen; Ctrl-L paints it again.
            try "GARBAGE GARBAGE".write(toFile: try tmux.pane("pane_tty"), atomically: false, encoding: .utf8)
            _ = try tmux.waitForScreen { $0.contains("GARBAGE") }
            try tmux.send("C-l")
            #expect(try !tmux.waitForScreen { !$0.contains("GARBAGE") }.contains("GARBAGE"))

            try tmux.send("q")
            #expect(try tmux.waitUntilExited())
        }

        @Test func enterShowsThePostWhichScrollsAndEscGoesBack() throws {
            let command = "\(DemoRun.binary.path) --url \(server.url("cjk.json").absoluteString)"
            let tmux = try Tmux(running: command, rows: 10, columns: 60)
            defer { tmux.close() }
            _ = try tmux.waitForScreen { $0.contains("40 posts") }
            try tmux.send("Down", "Enter")
            let detail = try tmux.waitForScreen { $0.contains("これは記事2の本文です") }
            #expect(detail.contains("#2  "))
            #expect(!detail.contains("The end of post 2."))
            try tmux.send("End")
            let end = try tmux.waitForScreen { $0.contains("The end of post 2.") }
            #expect(end.contains("The end of post 2."), "\(end)")
            try tmux.send("Escape")
            let list = try tmux.waitForScreen { $0.contains("page 1/") }
            #expect(list.contains("> #2  "), "\(list)")
        }

        @Test func aOneRowOrNarrowWindowStillMakesSense() throws {
            let tmux = try Tmux(running: DemoRun.binary.path, rows: 16, columns: 70)
            defer { tmux.close() }
            _ = try tmux.waitForScreen { $0.contains("page 1/10") }
            try tmux.resize(rows: 1, columns: 70)
            let one = try tmux.waitForScreen { $0.hasPrefix("page 1/100") }
            #expect(one.hasPrefix("page 1/100 · 100 posts · all users"), "\(one)")
            try tmux.resize(rows: 12, columns: 8)
            _ = try tmux.waitForScreen { $0.contains("> #1 ") }
            let rows = try tmux.rows()
            #expect(rows.allSatisfy { !$0.hasSuffix("─") || $0 == String(repeating: "─", count: 8) }, "\(rows)")
            #expect(rows[2].hasPrefix("> #1 "), "\(rows)")
        }
    }
}
