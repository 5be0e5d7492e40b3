import CacheStore
import Foundation
import Testing

private struct Author: Sendable {
    var name: String
    var tags: [String]
}

private enum Event: Sendable {
    case idle
    case loaded(count: Int, source: String)
    case failed(any Error)
}

private final class Reference: @unchecked Sendable {
    let value = 1
}

@Suite(.timeLimit(.minutes(2))) struct ValueDumpTests {
    @Test func leavesRenderAsSwiftLiterals() {
        #expect(ValueDump.inline("a \"quoted\"\nline") == #""a \"quoted\"\nline""#)
        #expect(ValueDump.inline(42) == "42")
        #expect(ValueDump.inline(2.5) == "2.5")
        #expect(ValueDump.inline(true) == "true")
        #expect(ValueDump.inline(URL(string: "https://example.com/a")!) == "URL(https://example.com/a)")
        #expect(ValueDump.inline(Optional<Int>.none as Any) == "nil")
        #expect(ValueDump.inline(Optional(3) as Any) == "3")
    }

    @Test func structsEnumsAndCollections() {
        #expect(ValueDump.inline(Author(name: "Ada", tags: ["x"])) == #"Author(name: "Ada", tags: ["x"])"#)
        #expect(ValueDump.inline(Event.idle) == ".idle")
        #expect(ValueDump.inline(Event.loaded(count: 2, source: "net")) == #".loaded(count: 2, source: "net")"#)
        #expect(ValueDump.inline(Event.failed("boom")) == #".failed("boom")"#)
        #expect(ValueDump.inline(["b": 2, "a": 1]) == #"["a": 1, "b": 2]"#)
        #expect(ValueDump.inline(Set([3, 1, 2])) == "Set([1, 2, 3])")
        #expect(ValueDump.inline((1, label: "x")) == #"(1, label: "x")"#)
        #expect(ValueDump.inline([Int]()) == "[]")
        #expect(ValueDump.inline([String: Int]()) == "[:]")
        // A NaN key is never found by lookup; its entry is still shown.
        #expect(ValueDump.inline([Double.nan: 1]) == "[nan: 1]")
    }

    @Test func longValuesBreakIntoIndentedLines() {
        let authors = [
            Author(name: "Ada Lovelace", tags: ["mathematics", "engines"]),
            Author(name: "Grace Hopper", tags: ["compilers"]),
        ]
        #expect(
            ValueDump.lines(authors) == [
                "[",
                #"  Author(name: "Ada Lovelace", tags: ["mathematics", "engines"]),"#,
                #"  Author(name: "Grace Hopper", tags: ["compilers"])"#,
                "]",
            ])
    }

    @Test func hugeCollectionsAreCutWithACount() {
        let lines = ValueDump.lines(Array(0..<1_000_000))
        #expect(lines.count == 103)
        #expect(lines[101] == "  … 999900 more")
    }

    @Test func inlineIsCutToTheRequestedLength() {
        let text = ValueDump.inline(String(repeating: "x", count: 500), maxLength: 20)
        #expect(text.count == 20)
        #expect(text.hasSuffix("…"))
    }

    @Test func classesShowTheirFields() {
        #expect(ValueDump.inline(Reference()) == "Reference(value: 1)")
    }
}
