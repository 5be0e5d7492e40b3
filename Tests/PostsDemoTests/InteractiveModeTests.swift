import Foundation
import Testing

extension ExternalProcessTests {
    /// The interactive mode in a real terminal: tmux runs the binary, keys are typed with `send-keys`,
    /// the screen is read with `capture-pane`.
    @Suite(.enabled(if: Tmux.isAvailable, "needs tmux"))
    struct InteractiveModeTests {
        @Test func keysDriveTheScreenAndQQuits() throws {
            let tmux = try Tmux(running: DemoRun.binary.path, rows: 16, columns: 70)
            let loaded = try tmux.waitForScreen { $0.contains("page 1/10") }
            #expect(loaded.contains("#1  "))
            #expect(loaded.contains("r refresh · c cancel · n/p page · u user · q quit"))

            try tmux.send("n")
            #expect(try tmux.waitForScreen { $0.contains("page 2/10") }.contains("#12  "))

            try tmux.send("u")
            #expect(try tmux.waitForScreen { $0.contains("10 posts · user 1") }.contains("page 1/1"))

            try tmux.send("r")
            try tmux.send("c")
            #expect(try tmux.waitForScreen { $0.contains("page 1/1 · 10 posts · user 1") }.contains("#10  "))

            try tmux.send("q")
            #expect(try tmux.waitUntilExited())
        }
    }
}

/// A tmux session for one test.
struct Tmux {
    let session = "cachestore-\(UUID().uuidString.prefix(8))"

    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
            || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/tmux")
    }

    init(running command: String, rows: Int, columns: Int) throws {
        try Self.run(["new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)", command])
    }

    func send(_ keys: String) throws {
        try Self.run(["send-keys", "-t", session, keys])
    }

    func screen() throws -> String {
        try Self.run(["capture-pane", "-p", "-t", session], capturingOutput: true)
    }

    /// The screen once `condition` holds, waiting up to ten seconds; the last screen otherwise.
    func waitForScreen(_ condition: (String) -> Bool) throws -> String {
        var text = try screen()
        for _ in 0..<200 where !condition(text) {
            Thread.sleep(forTimeInterval: 0.05)
            text = try screen()
        }
        return text
    }

    func waitUntilExited() throws -> Bool {
        for _ in 0..<100 {
            if (try? Self.run(["has-session", "-t", session])) == nil { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        _ = try? Self.run(["kill-session", "-t", session])
        return false
    }

    /// Runs tmux with `arguments`. Only a command that starts no server may capture output: a
    /// server started by `new-session` would inherit the pipe and keep it open.
    @discardableResult
    static func run(_ arguments: [String], capturingOutput: Bool = false) throws -> String {
        let process = try Subprocess("tmux", arguments, capturing: capturingOutput)
        let result = process.finish()
        guard result.status == 0 else { throw TmuxError(arguments: arguments) }
        return result.output
    }

    struct TmuxError: Error {
        var arguments: [String]
    }
}
