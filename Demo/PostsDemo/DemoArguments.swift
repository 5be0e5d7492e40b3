import Foundation

/// The command line: `PostsDemo [--url URL] [--once] [--timeout SECONDS] [--state-dir DIR |
/// --no-state] [--record FILE | --replay FILE] [--help]`.
struct DemoArguments: Equatable {
    var url: URL?
    var once = false
    var timeout: TimeInterval = 10
    var help = false
    /// Where the user filter and the list's position are remembered; `nil`: nowhere (`--no-state`).
    var stateFolder: URL? = DemoArguments.defaultStateFolder()
    /// Where the session's actions are recorded (`--record`).
    var recordFile: URL?
    /// The recorded session shown instead of a live one (`--replay`): nothing is fetched.
    var replayFile: URL?

    static let usage = """
        usage: PostsDemo [--url URL] [--once] [--timeout SECONDS] [--state-dir DIR | --no-state]
                         [--record FILE | --replay FILE]

        Shows posts with CacheStore. Without --url it serves 100 bundled sample posts (no network).
          --url URL          fetch posts from an HTTP(S) endpoint, for example
                             https://jsonplaceholder.typicode.com/posts
          --once             fetch once, print one post a line as "#ID TITLE", and exit
                             (also when standard output is not a terminal)
          --timeout SECONDS  how long a request may take in all, 0.001 to 86400 (default 10)
          --state-dir DIR    remember the user filter, page and selected post in DIR
                             (default $XDG_STATE_HOME/PostsDemo, or ~/.local/state/PostsDemo)
          --no-state         remember nothing
          --record FILE      record the session's actions and screens in FILE (a CacheStore journal)
          --replay FILE      show the session recorded in FILE, offline: its last screen (with --once,
                             printed), [ and ] step back and forward through it, q quits
          --help             show this help

        Keys: arrows or j/k select, Enter reads the post (Esc back), n/p or PgDn/PgUp page,
        g/G or Home/End first/last, u next user, r refresh, c cancel the fetch in flight,
        Ctrl-L redraw, ? help, q quit. Ctrl-Z suspends (fg resumes). While recording, [ and ] step
        back and forward through the session so far, and Esc comes back to the live screen.
        """

    /// The timeouts URLSession can take: not infinite, not so long that its arithmetic overflows.
    static let timeoutRange: ClosedRange<TimeInterval> = 0.001...86_400

    /// Why the command line could not be read.
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    /// `$XDG_STATE_HOME/PostsDemo`, or `~/.local/state/PostsDemo` where that is not set.
    static func defaultStateFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let stateHome =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state")
        return stateHome.appendingPathComponent("PostsDemo")
    }

    static func parse(_ arguments: [String]) throws(Invalid) -> DemoArguments {
        var result = DemoArguments()
        var rest = arguments[...]
        var stateOption: String?
        func chooseState(_ option: String) throws(Invalid) {
            if let stateOption { throw Invalid(description: "\(stateOption) and \(option) cannot go together") }
            stateOption = option
        }
        func file(after option: String) throws(Invalid) -> URL {
            guard let path = rest.popFirst(), !path.isEmpty, !path.hasPrefix("--") else {
                throw Invalid(description: "\(option) needs a file")
            }
            return URL(fileURLWithPath: path)
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--no-state":
                try chooseState(argument)
                result.stateFolder = nil
            case "--state-dir":
                try chooseState(argument)
                guard let path = rest.popFirst(), !path.isEmpty, !path.hasPrefix("--") else {
                    throw Invalid(description: "--state-dir needs a folder")
                }
                result.stateFolder = URL(fileURLWithPath: path)
            case "--record": result.recordFile = try file(after: argument)
            case "--replay": result.replayFile = try file(after: argument)
            case "--once": result.once = true
            case "--help", "-h": result.help = true
            case "--url":
                guard let text = rest.popFirst(), let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                    ["http", "https"].contains(scheme), url.host != nil
                else { throw Invalid(description: "--url needs an http or https URL") }
                result.url = url
            case "--timeout":
                guard let text = rest.popFirst(), let seconds = TimeInterval(text), timeoutRange.contains(seconds)
                else {
                    throw Invalid(description: "--timeout needs a number of seconds from 0.001 to 86400")
                }
                result.timeout = seconds
            default:
                throw Invalid(description: "unknown option \(argument)")
            }
        }
        if result.replayFile != nil {
            if result.recordFile != nil { throw Invalid(description: "--record and --replay cannot go together") }
            if result.url != nil {
                throw Invalid(description: "--replay shows what was recorded and fetches nothing: no --url with it")
            }
        }
        return result
    }
}
