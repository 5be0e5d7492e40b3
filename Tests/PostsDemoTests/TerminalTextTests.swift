import PostsFeature
import Testing

@Suite struct TerminalTextTests {
    @Test func escapeSequencesAndControlsAreRemoved() {
        #expect(TerminalText.sanitized("\u{1B}[2J\u{1B}[31mred\u{1B}[0m") == "red")
        #expect(TerminalText.sanitized("\u{1B}]0;pwned\u{07}title") == "title")
        #expect(TerminalText.sanitized("\u{1B}]8;;http://x\u{1B}\\link") == "link")
        #expect(TerminalText.sanitized("\u{9B}31mC1 csi") == "C1 csi")
        #expect(TerminalText.sanitized("bell\u{07} del\u{7F} nul\u{0}") == "bell del nul")
        #expect(TerminalText.sanitized("two\nlines\tand tab") == "two lines and tab")
        #expect(TerminalText.sanitized("\u{1B}Ma") == "a")
    }

    @Test func ordinaryTextIsKept() {
        #expect(TerminalText.sanitized("Café — ünïcödé 👋 [brackets]") == "Café — ünïcödé 👋 [brackets]")
    }

    @Test func truncationMarksTheCut() {
        #expect(TerminalText.truncated("abcdef", to: 4) == "abc…")
        #expect(TerminalText.truncated("abc", to: 4) == "abc")
    }
}
