/// Renders state changes for people: the debug log's per-action report.
@usableFromInline
package enum StateChangeReport: Sendable {
    /// The report of one action: its name, then each key that changed, or `(no state change)`.
    ///
    /// ```
    /// [CacheStore] Action: .fetchPosts
    ///   + .isLoading: true
    ///   ~ .page: 1 → 2
    ///   - .error (was: "timeout")
    /// ```
    @usableFromInline
    package static func debugText<Key: Hashable & SendableMetatype, Action>(action: Action, changes: [StateChange<Key>])
        -> String
    {
        var lines = ["[CacheStore] Action: \(ValueDump.inline(action))"]
        let visible = changes.filter(\.isVisible).sorted { $0.keyText < $1.keyText }
        if visible.isEmpty { lines.append("  (no state change)") }
        for change in visible { lines += change.debugLines }
        return lines.joined(separator: "\n")
    }

    /// What a change says when the two values differ only where their dumps are cut short.
    package static let changedBeyondDump =
        "changed past the first \(DumpNode.Limits.standard.maxChildren) elements shown (the dumps are the same)"

    /// `lines` of a value placed after `head`: on the same line when the value is one line, else
    /// below it, indented.
    static func attach(_ lines: [String], to head: String, indent: String) -> [String] {
        guard lines.count > 1 else { return [head + " " + (lines.first ?? "")] }
        return [head] + lines.map { indent + $0 }
    }
}

extension StateChange {
    package var keyText: String { ValueDump.inline(key) }

    /// Whether the change is worth reporting: a value was added, removed, or became a different value.
    package var isVisible: Bool {
        switch (before, after) {
        case (nil, nil): false
        case (let before?, let after?): !isStructurallyEqual(before, after)
        default: true
        }
    }

    fileprivate var debugLines: [String] {
        switch (before, after) {
        case (nil, let after?):
            return StateChangeReport.attach(ValueDump.lines(after), to: "  + \(keyText):", indent: "      ")
        case (let before?, nil):
            let lines = ValueDump.lines(before)
            guard lines.count > 1 else { return ["  - \(keyText) (was: \(lines[0]))"] }
            return ["  - \(keyText), was:"] + lines.map { "      " + $0 }
        default:
            let old = ValueDump.lines(before)
            let new = ValueDump.lines(after)
            if old == new { return ["  ~ \(keyText): \(StateChangeReport.changedBeyondDump)"] }
            if old.count == 1, new.count == 1 { return ["  ~ \(keyText): \(old[0]) → \(new[0])"] }
            return ["  ~ \(keyText):"] + LineDiff.lines(from: old, to: new).map(\.marked).map { "    " + $0 }
        }
    }
}

extension LineDiff.Line {
    /// The line with its mark: `−` removed, `+` added, a space kept.
    package var marked: String {
        switch self {
        case .same(let text): "  " + text
        case .removed(let text): "− " + text
        case .added(let text): "+ " + text
        }
    }
}
