import CacheStore
import Foundation
import PostsFeature

/// The time travel of a screen on the terminal, shared by the thread that reads keys and the
/// redraws: which recorded step is shown, behind a lock.
final class SessionTravel: @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var travel: TimeTravel

    init(_ travel: TimeTravel) {
        self.travel = travel
    }

    /// The screen of the recorded step shown; `nil`: the live screen.
    var screen: PostsScreen? { lock.withLock { travel.screen } }

    /// Acts on `key` if it is one of travel's: `[` back, `]` forward, and in a live session, while
    /// a step is shown, Esc or `q` back to the live screen.
    ///
    /// - Returns: Whether the key is taken: a travel key, or any key while a live session shows a
    ///   recorded step (the live screen's keys wait for the live screen).
    func handle(_ key: Key) -> Bool {
        lock.withLock {
            let wasTravelling = travel.screen != nil
            // A journal that cannot be read now (a failed write stopped the recording) leaves the
            // screen where it is.
            switch key {
            case .character("["): try? travel.stepBack()
            case .character("]"): try? travel.stepForward()
            case .escape, .character("q"):
                guard wasTravelling, travel.isLive else { return false }
                travel.returnToLive()
            default: return wasTravelling && travel.isLive && key != .redraw
            }
            return true
        }
    }
}
