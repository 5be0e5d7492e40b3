import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal: raw key input, size, drawing, and restoring it however the program ends.
enum Terminal {
    /// The settings to put back; set once before raw mode starts, read by the signal handler.
    nonisolated(unsafe) private static var original = termios()
    nonisolated(unsafe) private static var isRaw = false

    static var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1 }

    /// Rows and columns, or 24×80 when the terminal does not say.
    static var size: (rows: Int, columns: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else {
            return (24, 80)
        }
        return (Int(window.ws_row), Int(window.ws_col))
    }

    /// Reads keys one at a time without echo, on the alternate screen, cursor hidden. Ctrl-C and
    /// termination restore the terminal before the program ends.
    static func enterRawMode() {
        tcgetattr(STDIN_FILENO, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        isRaw = true
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { number in
                Terminal.restore()
                exit(128 + number)
            }
        }
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    /// Puts the terminal back as it was. Safe to call more than once.
    static func restore() {
        guard isRaw else { return }
        isRaw = false
        write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    /// Draws `lines` from the top left, clearing what was there.
    static func draw(_ lines: [String]) {
        write("\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n"))
    }

    /// The next key pressed, or `nil` at the end of input. Blocks.
    static func readKey() -> Character? {
        var byte: UInt8 = 0
        guard read(STDIN_FILENO, &byte, 1) == 1 else { return nil }
        return Character(UnicodeScalar(byte))
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
