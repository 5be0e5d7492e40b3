import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Signals, handled on a thread of their own rather than inside a signal handler: the handler only
/// writes the signal's number into a pipe, and the thread calls `handle` with it, where taking
/// locks and writing to the terminal are allowed.
enum Signals {
    /// The pipe's write end, for the handler (which can capture nothing).
    nonisolated(unsafe) fileprivate static var pipeInput: Int32 = -1

    /// Calls `handle` on a thread of its own for each of `signals` received, from now on.
    static func watch(_ signals: [Int32], handle: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        pipeInput = ends[1]
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)  // a handler must never block: a full pipe drops a signal
        let output = ends[0]
        Thread {
            var number: UInt8 = 0
            while true {
                let count = read(output, &number, 1)
                if count == 1 { handle(Int32(number)) } else if count == 0 || errno != EINTR { return }
            }
        }.start()
        for signal in signals { catchSignal(signal) }
    }

    /// Sends `signal` to the watching thread, from now on (again after ``raiseWithDefaultAction(_:)``).
    static func catchSignal(_ signal: Int32) {
        setHandler(forward, flags: SA_RESTART, for: signal)
    }

    /// Does what `signal` does by default (stop, or end the program) to this process now.
    static func raiseWithDefaultAction(_ signal: Int32) {
        setHandler(SIG_DFL, flags: 0, for: signal)
        kill(getpid(), signal)
    }

    private static func setHandler(
        _ handler: (@convention(c) (Int32) -> Void)?, flags: Int32, for signal: Int32
    ) {
        var action = sigaction()
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = handler
        #else
            action.__sigaction_u.__sa_handler = handler
        #endif
        action.sa_flags = flags
        sigaction(signal, &action, nil)
    }
}

/// The signal handler: async-signal-safe, it only writes the number into the pipe.
private func forward(_ signal: Int32) {
    let saved = errno
    var number = UInt8(truncatingIfNeeded: signal)
    _ = write(Signals.pipeInput, &number, 1)
    errno = saved
}
