import CacheStore
import Foundation
import PostsFeature

/// `--replay FILE`: the session recorded in FILE, shown from its journal alone.
enum ReplayRun {
    /// Shows the session: its last screen printed (with `once`, or when standard output is not a
    /// terminal), or on the terminal to travel through.
    ///
    /// - Returns: The exit status: 0; 64 when the file is not a session this program can show (one
    ///   line on standard error says why), as for a bad option; 1 when the output could not be written.
    static func run(_ file: URL, once: Bool) async -> Int32 {
        let session: RecordedSession
        let lastScreen: [String]
        let travel: TimeTravel
        do {
            session = try RecordedSession(contentsOf: file)
            lastScreen = try lastScreenLines(of: session)
            travel = try TimeTravel(replaying: session)
        } catch {
            StandardOutput.report("PostsDemo: \(TerminalText.sanitized(error.description))")
            return 64
        }
        guard once || !Terminal.isInteractive else {
            await ReplayApp(travel).run()
            return 0
        }
        do {
            try StandardOutput.write(lastScreen.map { $0 + "\n" }.joined())
        } catch {
            StandardOutput.report("PostsDemo: cannot write the output: \(error)")
            return 1
        }
        return 0
    }

    /// The session's last screen as it looked: as many rows as the recording's window had (its page
    /// and the lines around it), 80 columns, or the terminal's width.
    private static func lastScreenLines(of session: RecordedSession) throws(JournalError) -> [String] {
        let pageSize = try session.store(at: session.steps).pageSize
        let width = Terminal.isInteractive ? Terminal.size.columns : 80
        return try session.screen(at: session.steps)
            .lines(width: width, height: pageSize + PostsScreen.chromeLines, spinnerFrame: 0)
    }
}
