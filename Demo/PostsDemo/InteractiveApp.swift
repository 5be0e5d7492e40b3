import CacheStore
import Foundation
import PostsFeature

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The interactive screen: keys and signals in, the rows that changed redrawn on every state
/// change and spinner tick.
final class InteractiveApp: Sendable {
    private let store: Store<PostsKey, AppAction, PostsClient>
    private let source: String
    private let spinner = SpinnerClock()
    private let terminal = Terminal()

    init(store: Store<PostsKey, AppAction, PostsClient>, source: String) {
        self.store = store
        self.source = source
    }

    /// Runs until `q`, the end of input, or a signal that ends the program.
    func run() async {
        terminal.enterRawMode()
        Signals.watch([SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT, SIGWINCH]) { [self] in handle(signal: $0) }
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
        await readKeysUntilQuit()
        redraws.cancel()
        ticks.cancel()
    }

    private func readKeysUntilQuit() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { [self] in
                while let key = Key.read(), handle(key) {}
                terminal.close()  // before anything else: no frame may follow
                done.resume()
            }.start()
        }
    }

    /// Ctrl-Z stops with the terminal as the shell expects it; `fg` brings raw mode and the screen
    /// back; a resize redraws at once; a signal that ends the program restores the terminal first.
    private func handle(signal: Int32) {
        switch signal {
        case SIGTSTP:
            terminal.restore()
            Signals.raiseWithDefaultAction(SIGTSTP)  // stops here until SIGCONT
            Signals.catchSignal(SIGTSTP)
        case SIGCONT:
            terminal.enterRawMode()
            fitPageSizeToTerminal()
            redraw()
        case SIGWINCH:
            terminal.invalidate()
            fitPageSizeToTerminal()
            redraw()
        default:
            terminal.close()
            saveState()
            Signals.raiseWithDefaultAction(signal)
        }
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

    private func redraw() {
        terminal.draw { rows, columns in
            PostsScreen(store: store, source: source).lines(width: columns, height: rows, spinnerFrame: spinner.frame)
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
