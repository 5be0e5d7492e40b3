import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A key pressed: a character, or one of the keys terminals send as escape sequences.
enum Key: Equatable {
    case character(Character)
    case up, down, pageUp, pageDown, home, end
    case enter, escape
    /// Ctrl-L.
    case redraw
    /// A sequence this program has no use for.
    case other

    /// The next key pressed, or nil at the end of input. Blocks.
    static func read() -> Key? {
        guard let byte = readByte() else { return nil }
        switch byte {
        case 0x0D, 0x0A: return .enter
        case 0x0C: return .redraw
        case 0x1B: return readEscapeSequence()
        case 0x20..<0x7F: return .character(Character(Unicode.Scalar(byte)))
        default: return .other
        }
    }

    /// After ESC: a lone Esc when nothing follows at once, else `ESC [ …` or `ESC O …`.
    private static func readEscapeSequence() -> Key {
        guard hasInput(withinMilliseconds: 30), let introducer = readByte() else { return .escape }
        guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else { return .other }
        var parameters = ""
        while let byte = readByte() {
            guard (0x40...0x7E).contains(byte) else {
                parameters.append(Character(Unicode.Scalar(byte)))
                continue
            }
            switch (parameters, Character(Unicode.Scalar(byte))) {
            case ("", "A"): return .up
            case ("", "B"): return .down
            case ("", "H"), ("1", "~"), ("7", "~"): return .home
            case ("", "F"), ("4", "~"), ("8", "~"): return .end
            case ("5", "~"): return .pageUp
            case ("6", "~"): return .pageDown
            default: return .other
            }
        }
        return .other
    }

    private static func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = readStandardInput(&byte)
            if count == 1 { return byte }
            if count == 0 || errno != EINTR { return nil }
        }
    }

    private static func hasInput(withinMilliseconds milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }
}

/// read(2) of one byte, as a free function: inside ``Key`` the name `read` is its own.
private func readStandardInput(_ byte: inout UInt8) -> Int {
    read(STDIN_FILENO, &byte, 1)
}
