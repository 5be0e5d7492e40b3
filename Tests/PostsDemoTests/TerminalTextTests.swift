import PostsFeature
import Testing

@Suite(.timeLimit(.minutes(2))) struct TerminalTextTests {
    @Test func escapeSequencesAndControlsAreRemoved() {
        #expect(TerminalText.sanitized("\u{1B}[2J\u{1B}[31mred\u{1B}[0m") == "red")
        #expect(TerminalText.sanitized("\u{1B}]0;pwned\u{07}title") == "title")
        #expect(TerminalText.sanitized("\u{1B}]8;;http://x\u{1B}\\link") == "link")
        #expect(TerminalText.sanitized("\u{9B}31mC1 csi") == "C1 csi")
        #expect(TerminalText.sanitized("bell\u{07} del\u{7F} nul\u{0}") == "bell del nul")
        #expect(TerminalText.sanitized("two\nlines\tand tab") == "two lines and tab")
        #expect(TerminalText.sanitized("\u{1B}Ma") == "a")
    }

    @Test func textDirectionControlsAreRemoved() {
        let controls = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
        for control in controls {
            let scalar = String(Character(Unicode.Scalar(UInt32(control))!))
            #expect(TerminalText.sanitized("evil\(scalar)txt.exe") == "eviltxt.exe", "U+\(String(control, radix: 16))")
        }
        #expect(TerminalText.sanitized("שלום abc") == "שלום abc")  // right-to-left letters are text
    }

    @Test func ordinaryTextIsKept() {
        #expect(TerminalText.sanitized("Café — ünïcödé 👋 [brackets]") == "Café — ünïcödé 👋 [brackets]")
    }

    @Test func truncationMarksTheCut() {
        #expect(TerminalText.truncated("abcdef", to: 4) == "abc…")
        #expect(TerminalText.truncated("abc", to: 4) == "abc")
    }
}

@Suite(.timeLimit(.minutes(2))) struct DisplayWidthTests {
    @Test func cellsOfEachKindOfCharacter() {
        #expect(TerminalText.width(of: "abc") == 3)
        #expect(TerminalText.width(of: "東京") == 4)  // East Asian wide
        #expect(TerminalText.width(of: "ＡＢ") == 4)  // fullwidth
        #expect(TerminalText.width(of: "한국") == 4)  // Hangul syllables
        #expect(TerminalText.width(of: "e\u{301}") == 1)  // combining acute
        #expect(TerminalText.width(of: "\u{301}") == 0)  // a lone combining mark
        #expect(TerminalText.width(of: "a\u{200B}b") == 2)  // zero-width space
        #expect(TerminalText.width(of: "👋") == 2)  // emoji presentation
        #expect(TerminalText.width(of: "☺") == 1)  // text presentation…
        #expect(TerminalText.width(of: "☺\u{FE0F}") == 2)  // …made emoji by VS16
        #expect(TerminalText.width(of: "🇯🇵") == 2)  // a flag: two regional indicators
        #expect(TerminalText.width(of: "👍🏽") == 2)  // skin tone modifier
        #expect(TerminalText.width(of: "👩\u{200D}💻") == 4)  // joined: counted by part, never too few
        #expect(TerminalText.width(of: "…─") == 2)
    }

    @Test func truncationCountsCellsNotCharacters() {
        #expect(TerminalText.truncated("東京大阪", to: 8) == "東京大阪")
        #expect(TerminalText.truncated("東京大阪", to: 7) == "東京大…")
        #expect(TerminalText.truncated("東京大阪", to: 6) == "東京…")  // a wide character does not fit in 1
        #expect(TerminalText.truncated("e\u{301}e\u{301}e\u{301}", to: 3) == "e\u{301}e\u{301}e\u{301}")
        #expect(TerminalText.truncated("abc", to: 1) == "…")
        #expect(TerminalText.truncated("abc", to: 0) == "")
        for width in 0..<12 {
            #expect(TerminalText.width(of: TerminalText.truncated("#1  東京👋e\u{301}大阪", to: width)) <= width)
        }
    }

    @Test func wrappingBreaksBetweenWordsOrInsideTextWithoutSpaces() {
        #expect(TerminalText.wrapped("one two three four", to: 9) == ["one two", "three", "four"])
        #expect(TerminalText.wrapped("東京大阪京都", to: 5) == ["東京", "大阪", "京都"])
        #expect(TerminalText.wrapped("abcdefgh ij", to: 3) == ["abc", "def", "gh", "ij"])
        #expect(TerminalText.wrapped("#1  東京大阪", to: 6) == ["#1  東", "京大阪"])  // a long word starts on the line
        #expect(TerminalText.wrapped("", to: 3) == [""])
    }
}
