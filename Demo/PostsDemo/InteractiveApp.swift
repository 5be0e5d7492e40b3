import CacheStore
import Foundation
import PostsFeature

/// The interactive screen: keys in, the screen redrawn on every state change and spinner tick.
final class InteractiveApp: Sendable {
    private let store: Store<PostsKey, PostsAction, PostsClient>
    private let userFilter: Store<UserFilterKey, UserFilterAction, Void>
    private let source: String
    private let spinner = SpinnerClock()

    init(store: Store<PostsKey, PostsAction, PostsClient>, source: String) {
        self.store = store
        self.userFilter = store.userFilterStore()
        self.source = source
    }

    /// Runs until `q`, the end of input, or a signal.
    func run() async {
        Terminal.enterRawMode()
        defer { Terminal.restore() }
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
        store.handle(action: .load)
        redraw()
        await readKeysUntilQuit()
        redraws.cancel()
        ticks.cancel()
    }

    private func readKeysUntilQuit() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { [self] in
                while let key = Terminal.readKey(), key != "q" { handle(key) }
                done.resume()
            }.start()
        }
    }

    private func handle(_ key: Character) {
        switch key {
        case "r": store.handle(action: .load)
        case "c": store.handle(action: .cancel)
        case "n", " ": store.handle(action: .nextPage)
        case "p": store.handle(action: .previousPage)
        case "u": userFilter.handle(action: .selectNextUser)
        default: return
        }
        fitPageSizeToTerminal()
    }

    private func fitPageSizeToTerminal() {
        let rows = max(1, Terminal.size.rows - PostsScreen.chromeLines)
        if rows != store.pageSize { store.handle(action: .setPageSize(rows)) }
    }

    private func redraw() {
        let screen = PostsScreen(store: store, source: source)
        Terminal.draw(screen.lines(width: Terminal.size.columns, spinnerFrame: spinner.frame))
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
