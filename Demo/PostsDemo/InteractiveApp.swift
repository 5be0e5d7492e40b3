import CacheStore
import Foundation
import PostsFeature

/// The interactive screen: keys and signals in, the rows that changed redrawn on every state
/// change and spinner tick.
///
/// A recorded session can travel back (`[`) and forward (`]`) through the journal recorded so far:
/// the screen then shows a recorded step, while the live store goes on as it was.
final class InteractiveApp: Sendable {
    private let store: Store<PostsKey, AppAction, PostsClient>
    private let source: String
    private let spinner = SpinnerClock()
    private let terminal = Terminal()
    /// Travel through the session's journal; `nil` when the session is not recorded.
    private let travel: SessionTravel?

    /// The screen of `store`, which fetches from `source`; with `journalFile`, the file the store
    /// records the session into, to travel through.
    init(store: Store<PostsKey, AppAction, PostsClient>, source: String, journalFile: URL? = nil) {
        self.store = store
        self.source = source
        travel = journalFile.map { SessionTravel(TimeTravel(recordingIn: $0)) }
    }

    /// Runs until `q`, the end of input, or a signal that ends the program.
    func run() async {
        terminal.enterRawMode()
        terminal.followSignals { [self] in
            fitPageSizeToTerminal()
            redraw()
        } ending: { [self] in
            saveState()
        }
        fitPageSizeToTerminal()
        let redraws = Task { [self] in
            for await _ in store.changes { redraw() }
        }
        let ticks = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                if store.isLoading {
                    spinner.advance()
                    redraw()
                }
            }
        }
        store.handle(action: .list(.load))
        redraw()
        await terminal.readKeys { [self] in handle($0) }
        redraws.cancel()
        ticks.cancel()
    }

    /// Saves what the store has not saved yet, before a signal ends the program: on the signals'
    /// own thread, which may wait (a second at most, for a folder on a stuck disk).
    private func saveState() {
        let saved = DispatchSemaphore(value: 0)
        Task { [store] in
            await store.flush()
            saved.signal()
        }
        _ = saved.wait(timeout: .now() + 1)
    }

    /// Acts on `key`; false when it quits.
    private func handle(_ key: Key) -> Bool {
        if let travel, travel.handle(key) {
            redraw()
            return true
        }
        let action: AppAction?
        if store.view == .list {
            if key == .character("q") { return false }
            action = listAction(for: key)
        } else {
            action = readingAction(for: key).map(AppAction.list)
        }
        if let action { store.handle(action: action) }
        if key == .redraw {
            terminal.invalidate()
            redraw()
        }
        return true
    }

    /// The keys of the list.
    private func listAction(for key: Key) -> AppAction? {
        switch key {
        case .character("r"): .list(.load)
        case .character("c"): .list(.cancel)
        case .character("n"), .character(" "), .pageDown: .list(.nextPage)
        case .character("p"), .pageUp: .list(.previousPage)
        case .character("j"), .down: .list(.selectNext)
        case .character("k"), .up: .list(.selectPrevious)
        case .character("g"), .home: .list(.selectFirst)
        case .character("G"), .end: .list(.selectLast)
        case .enter: .list(.open)
        case .character("?"): .list(.showHelp)
        case .character("u"): .userFilter(.selectNextUser)
        default: nil
        }
    }

    /// Scrolling a post or the help, and going back.
    private func readingAction(for key: Key) -> PostsAction? {
        let size = Terminal.size
        let screen = PostsScreen(store: store, source: source)
        let page = PostsScreen.listRows(height: size.rows)
        let last = screen.lastScrollLine(width: size.columns, height: size.rows)
        let line: Int
        switch store.view {
        case .post(let current), .help(let current): line = min(current, last)
        case .list: return nil
        }
        switch key {
        case .escape, .character("q"), .character("?"): return .back
        case .down, .character("j"), .enter: return .scroll(to: min(line + 1, last))
        case .up, .character("k"): return .scroll(to: max(0, line - 1))
        case .pageDown, .character(" "), .character("n"): return .scroll(to: min(line + page, last))
        case .pageUp, .character("p"): return .scroll(to: max(0, line - page))
        case .home, .character("g"): return .scroll(to: 0)
        case .end, .character("G"): return .scroll(to: last)
        default: return nil
        }
    }

    private func fitPageSizeToTerminal() {
        let rows = PostsScreen.listRows(height: Terminal.size.rows)
        if rows != store.pageSize { store.handle(action: .list(.setPageSize(rows))) }
    }

    /// Draws the live screen, or the recorded step travel shows.
    private func redraw() {
        terminal.draw { rows, columns in
            let screen = travel?.screen ?? PostsScreen(store: store, source: source)
            return screen.lines(width: columns, height: rows, spinnerFrame: spinner.frame)
        }
    }
}

/// The spinner's frame, advanced by the tick task and read by redraws.
final class SpinnerClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0

    var frame: Int { lock.withLock { current } }

    func advance() {
        lock.withLock { current += 1 }
    }
}
