/// How many terminal cells text takes, and cutting or wrapping it to a width in cells.
///
/// A character (grapheme cluster) takes 2 cells when it is East Asian wide or fullwidth, or an emoji
/// shown as an emoji (Emoji_Presentation, or any emoji followed by VS16 U+FE0F); 0 when it is only
/// combining marks, format characters (zero-width space, joiners, bidi marks) or variation
/// selectors; 1 otherwise. Parts joined by a zero-width joiner are counted one by one: a terminal
/// that draws a joined emoji as one glyph then leaves blank cells, and none draws a line too wide.
extension TerminalText {
    /// The cells `text` takes in a terminal.
    ///
    /// - Parameter text: Text without control characters (see ``sanitized(_:)``).
    /// - Returns: The width in cells, for example 4 for `"東京"` and 1 for `"é"` written as `e` + U+0301.
    public static func width(of text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// The cells `character` takes in a terminal: 0, 1 or 2 for each part of a joined sequence.
    public static func width(of character: Character) -> Int {
        var total = 0
        var part: Int?
        var previous: Unicode.Scalar?
        for scalar in character.unicodeScalars {
            if scalar.value == 0x200D {  // zero-width joiner: the next scalar starts a new part
                total += part ?? 0
                part = nil
            } else if scalar.value == 0xFE0F, previous?.properties.isEmoji == true {
                part = 2
            } else if !isZeroWidth(scalar) {
                part = max(part ?? 0, isWide(scalar) ? 2 : 1)
            }
            previous = scalar
        }
        return total + (part ?? 0)
    }

    /// `text` cut to at most `width` cells, ending in `…` when cut.
    ///
    /// - Parameters:
    ///   - text: The text to fit.
    ///   - width: The cells available; 0 or less gives an empty string.
    /// - Returns: `text` itself when it fits, otherwise its longest start that fits with `…` after it.
    public static func truncated(_ text: String, to width: Int) -> String {
        guard self.width(of: text) > width else { return text }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let cells = self.width(of: character)
            guard used + cells <= width - 1 else { break }
            result.append(character)
            used += cells
        }
        return result + "…"
    }

    /// `text` broken into lines of at most `width` cells: between words where it can, inside a word
    /// (or text without spaces, such as Japanese) where it must.
    ///
    /// - Parameters:
    ///   - text: One line of text without control characters.
    ///   - width: The cells of a line; at least 1 is used.
    /// - Returns: The lines, at least one.
    public static func wrapped(_ text: String, to width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let wordWidth = self.width(of: word)
            if !line.isEmpty, used + 1 + wordWidth <= width {
                line += " " + word
                used += 1 + wordWidth
                continue
            }
            if wordWidth > width, !line.isEmpty, used + 1 < width {
                line += " "  // a word broken anyway starts on this line
                used += 1
            } else if !line.isEmpty {
                lines.append(line)
                (line, used) = ("", 0)
            }
            for character in word {
                let cells = self.width(of: character)
                if used + cells > width, !line.isEmpty {
                    lines.append(line)
                    (line, used) = ("", 0)
                }
                line.append(character)
                used += cells
            }
        }
        return lines + [line]
    }

    /// Takes no cell of its own: marks drawn on the character before, format characters, the
    /// medial and final jamo of a Hangul syllable written in parts.
    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return true
        case .format: return scalar.value != 0x00AD  // a soft hyphen is shown
        default: return (0x1160...0x11FF).contains(scalar.value) || (0xD7B0...0xD7FF).contains(scalar.value)
        }
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isEmojiPresentation || eastAsianWide.contains { $0.contains(scalar.value) }
    }

    /// The East Asian Wide (W) and Fullwidth (F) blocks of UAX #11, outside emoji.
    private static let eastAsianWide: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul initial jamo
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, symbols and punctuation, ideographic space
        0x3041...0x33FF,  // kana, bopomofo, Hangul compatibility jamo, CJK compatibility
        0x3400...0x4DBF,  // CJK extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4,  // ideographic symbols
        0x17000...0x18CFF,  // Tangut, Khitan
        0x1AFF0...0x1B2FF,  // kana supplement and extensions, Nushu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK extensions B–F
        0x30000...0x3FFFD,  // CJK extensions G–H
    ]
}
