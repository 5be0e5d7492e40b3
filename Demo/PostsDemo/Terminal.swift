import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal: raw mode on the alternate screen, its size, and frames drawn into it.
///
/// Every write goes through one lock, and nothing is drawn while the terminal is not in raw mode:
/// after ``restore()`` (quit, a signal, Ctrl-Z) no frame can land on the shell's screen.
final class Terminal: @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by `lock`, like the others: the settings to put back, saved the first time.
    private var original: termios?
    private var isRaw = false
    /// Set by ``close()``: raw mode never comes back.
    private var isClosed = false
    /// What the screen shows, row by row; nil when it must be painted whole.
    private var shown: [String]?

    static var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1 }

    /// Rows and columns, or 24×80 when the terminal does not say.
    static var size: (rows: Int, columns: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else {
            return (24, 80)
        }
        return (Int(window.ws_row), Int(window.ws_col))
    }

    /// Reads keys one at a time without echo, on the alternate screen, cursor hidden. Again after
    /// a stop: the next frame is painted whole.
    func enterRawMode() {
        lock.withLock {
            guard !isClosed else { return }
            if original == nil {
                var settings = termios()
                tcgetattr(STDIN_FILENO, &settings)
                original = settings
            }
            guard var raw = original else { return }
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &raw)
            isRaw = true
            shown = nil
            Self.write("\u{1B}[?1049h\u{1B}[?25l")
        }
    }

    /// Puts the terminal back as it was: main screen, cursor shown, line mode. Safe to call more
    /// than once; nothing is drawn until ``enterRawMode()`` again.
    func restore() {
        lock.withLock {
            guard isRaw, var settings = original else { return }
            isRaw = false
            Self.write("\u{1B}[?2026l\u{1B}[?25h\u{1B}[?1049l")
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        }
    }

    /// Restores the terminal for good: the program is ending.
    func close() {
        lock.withLock { isClosed = true }
        restore()
    }

    /// Paints the next frame whole (Ctrl-L, a resize).
    func invalidate() {
        lock.withLock { shown = nil }
    }

    /// Draws the frame `render` makes for the terminal's size now, writing only the rows that
    /// changed, as one synchronized update (`CSI ? 2026 h/l`; terminals without it ignore it).
    /// Does nothing when the terminal is not in raw mode.
    func draw(_ render: (_ rows: Int, _ columns: Int) -> [String]) {
        lock.withLock {
            guard isRaw else { return }
            let size = Self.size
            let frame = render(size.rows, size.columns)
            var output = "\u{1B}[?2026h"
            if shown?.count != frame.count {
                output += "\u{1B}[H\u{1B}[2J"
                shown = nil
            }
            for (row, line) in frame.enumerated() where shown?[row] != line {
                output += "\u{1B}[\(row + 1);1H\u{1B}[2K" + line
            }
            shown = frame
            Self.write(output + "\u{1B}[?2026l")
        }
    }

    /// Writes `text` to standard output, ignoring errors: a terminal that is gone cannot be told.
    private static func write(_ text: String) {
        try? StandardOutput.write(text)
    }
}
