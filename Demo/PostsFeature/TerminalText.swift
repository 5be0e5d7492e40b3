/// Text from the network made safe for a terminal.
public enum TerminalText {
    /// `text` with every terminal control sequence and control character removed, on one line.
    ///
    /// Removes escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL` or `ESC \\`, and two-byte
    /// `ESC x`), C0 controls (line breaks and tabs become spaces), DEL, and C1 controls including the
    /// single-character CSI (U+009B) and OSC (U+009D), and the text direction controls (bidi marks,
    /// embeddings, overrides and isolates, U+061C, U+200E–F, U+202A–E, U+2066–9). A post cannot move
    /// the cursor, recolour the screen, set the window title, ring the bell or reverse the line.
    public static func sanitized(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x1B:  // ESC
                switch scalars.next()?.value {
                case 0x5B: skipControlSequence(&scalars)  // CSI
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F: skipString(&scalars)  // OSC, DCS, SOS, PM, APC
                default: break  // a two-byte escape: both dropped
                }
            case 0x9B: skipControlSequence(&scalars)
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F: skipString(&scalars)
            case 0x09, 0x0A, 0x0D: result.append(" ")
            case 0x00..<0x20, 0x7F, 0x80..<0xA0: break
            case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: break  // text direction
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// Skips a control sequence's parameters up to its final byte (0x40–0x7E).
    private static func skipControlSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next(), !(0x40...0x7E).contains(scalar.value) {}
    }

    /// Skips a string command up to BEL, ST (U+009C) or `ESC \`.
    private static func skipString(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            if scalar.value == 0x07 || scalar.value == 0x9C { return }
            if scalar.value == 0x1B {
                _ = scalars.next()
                return
            }
        }
    }
}
