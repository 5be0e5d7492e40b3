import Foundation
import PostsFeature

/// `--replay` in a terminal: a recorded session's screen, from its last step, that `[` and `]` move
/// back and forward through; `q` quits. There is no live store: nothing is fetched or handled.
final class ReplayApp: Sendable {
    private let travel: SessionTravel
    private let terminal = Terminal()

    /// The screen of `travel`'s recorded session.
    init(_ travel: TimeTravel) {
        self.travel = SessionTravel(travel)
    }

    /// Runs until `q`, the end of input, or a signal that ends the program.
    func run() async {
        terminal.enterRawMode()
        terminal.followSignals(resized: { [self] in redraw() }, ending: {})
        redraw()
        await terminal.readKeys { [self] key in
            if key == .character("q") { return false }
            if key == .redraw { terminal.invalidate() }
            _ = travel.handle(key)
            redraw()
            return true
        }
    }

    private func redraw() {
        terminal.draw { rows, columns in
            travel.screen?.lines(width: columns, height: rows, spinnerFrame: 0) ?? []
        }
    }
}
