import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What every full-screen program of the demo does with the terminal: keys read until it quits,
/// and the signals a terminal program must answer.
extension Terminal {
    /// Reads keys on a thread of their own (reading blocks), passing each to `handle`, until it
    /// returns false or input ends; then closes the terminal, before anything else, so that no frame
    /// follows.
    func readKeys(_ handle: @escaping @Sendable (Key) -> Bool) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { [self] in
                while let key = Key.read(), handle(key) {}
                close()
                done.resume()
            }.start()
        }
    }

    /// From now on: Ctrl-Z stops with the terminal as the shell expects it, and `fg` brings raw mode
    /// and the screen back (`resized`, as the window may have changed meanwhile); a resize calls
    /// `resized` with the next frame to be painted whole; a signal that ends the program restores
    /// the terminal, calls `ending`, then ends it.
    func followSignals(resized: @escaping @Sendable () -> Void, ending: @escaping @Sendable () -> Void) {
        Signals.watch([SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT, SIGWINCH]) { [self] signal in
            switch signal {
            case SIGTSTP:
                restore()
                Signals.raiseWithDefaultAction(SIGTSTP)  // stops here until SIGCONT
                Signals.catchSignal(SIGTSTP)
            case SIGCONT:
                enterRawMode()
                resized()
            case SIGWINCH:
                invalidate()
                resized()
            default:
                close()
                ending()
                Signals.raiseWithDefaultAction(signal)
            }
        }
    }
}
