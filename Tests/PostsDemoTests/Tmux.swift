import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tmux session for one test: a real terminal whose screen the test reads.
struct Tmux {
    let session = "cachestore-\(UUID().uuidString.prefix(8))"
    /// The state home of the demo runs in the session, removed with it.
    let stateHome = DemoStateHome()

    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
            || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/tmux")
    }

    /// A session running `command` alone: the session ends when it exits.
    init(running command: String, rows: Int, columns: Int) throws {
        try Self.run([
            "new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)", stateHome.prefixing(command),
        ])
    }

    /// A session running an interactive bash with job control and the prompt `$ `, for what
    /// happens around the program: the shell after it stops or exits.
    init(shellRows rows: Int, columns: Int) throws {
        try Self.run([
            "new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)",
            stateHome.prefixing("env PS1='$ ' bash --norc --noprofile -i"),
        ])
        _ = try waitForScreen { $0.hasPrefix("$") }  // capture-pane drops the prompt's trailing space
    }

    /// Types `line` and Enter into the shell.
    func type(_ line: String) throws {
        try Self.run(["send-keys", "-t", session, "-l", line])
        try send("Enter")
    }

    /// Sends keys by tmux's names: `"n"`, `"C-z"`, `"Up"`, `"NPage"`, `"Enter"`, `"Escape"`.
    func send(_ keys: String...) throws {
        try Self.run(["send-keys", "-t", session] + keys)
    }

    func screen() throws -> String {
        try Self.run(["capture-pane", "-p", "-t", session], capturingOutput: true)
    }

    /// The screen's rows, trailing blanks removed.
    func rows() throws -> [String] {
        // capture-pane ends every row, the last one too, with a line break
        try screen().split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
    }

    /// A value of the pane from tmux's formats, for example `alternate_on` or `cursor_flag`.
    func pane(_ format: String) throws -> String {
        try Self.run(["display-message", "-p", "-t", session, "#{\(format)}"], capturingOutput: true)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func resize(rows: Int, columns: Int) throws {
        try Self.run(["resize-window", "-t", session, "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Copies everything the program writes to the terminal into `file`, from now on.
    func recordOutput(to file: URL) throws {
        try Self.run(["pipe-pane", "-O", "-t", session, "cat > '\(file.path)'"])
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
            if (try? Self.run(["has-session", "-t", session])) == nil {
                stateHome.remove()
                return true
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        close()
        return false
    }

    /// Ends the session and what runs in it.
    /// Its state home is removed once the program in the pane has ended, or after two seconds: a
    /// demo saves its state when the session's end hangs it up, which would make the folder again.
    func close() {
        let panePID = (try? pane("pane_pid")).flatMap { pid_t($0) }
        _ = try? Self.run(["kill-session", "-t", session])
        if let panePID {
            for _ in 0..<40 where Self.isRunning(panePID) { Thread.sleep(forTimeInterval: 0.05) }
        }
        stateHome.remove()
    }

    /// Whether process `pid` runs: it exists and, on Linux, is not a zombie (a container's first
    /// process may never reap the processes the tmux server left it).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        #if os(Linux)
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return false }
            return stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).first != "Z"
        #else
            return true
        #endif
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
