/// Renders state changes for people: the debug log's per-action report.
@usableFromInline
package enum StateChangeReport: Sendable {
    /// The most bytes of one action's report by default: 64 KB, whatever the values.
    package static let defaultMaxLength = 65_536

    /// The report of one action, at most ``defaultMaxLength`` bytes: see ``debugText(action:changes:maxLength:)``.
    @usableFromInline
    package static func debugText<Key: Hashable & SendableMetatype, Action>(action: Action, changes: [StateChange<Key>])
        -> String
    {
        debugText(action: action, changes: changes, maxLength: defaultMaxLength)
    }

    /// The report of one action: its name, then each key that changed, or `(no state change)`.
    ///
    /// ```
    /// [CacheStore] Action: .fetchPosts
    ///   + .isLoading: true
    ///   ~ .page: 1 → 2
    ///   - .error (was: "timeout")
    /// ```
    ///
    /// See ``text(header:rows:whenUnchanged:maxLength:)``.
    ///
    /// - Parameters:
    ///   - action: The action handled.
    ///   - changes: Each key written, with its values before and after.
    ///   - maxLength: About the most bytes of the report.
    @usableFromInline
    package static func debugText<Key: Hashable & SendableMetatype, Action>(
        action: Action, changes: [StateChange<Key>], maxLength: Int
    ) -> String {
        text(
            header: "[CacheStore] Action: \(ValueDump.inline(action))", rows: changes.map(Row.init),
            whenUnchanged: "(no state change)", maxLength: maxLength)
    }

    /// A report: `header`, then each row whose value changed, sorted by key, or `whenUnchanged`.
    ///
    /// A value that spans several lines is shown as a line diff (see ``ValueDiff``). The report is cut
    /// at about `maxLength` bytes, with a last line saying how much was left out; building it costs
    /// O(`maxLength`) plus O(size) to compare each changed key's values.
    ///
    /// - Parameters:
    ///   - header: The first line, naming the action.
    ///   - rows: Each key written, with its values before and after.
    ///   - whenUnchanged: The line shown when no value changed.
    ///   - maxLength: About the most bytes of the report.
    static func text(header: String, rows: [Row], whenUnchanged: String, maxLength: Int) -> String {
        var lines = [header]
        let visible = rows.compactMap { row in row.visibleDifference.map { (row: row, difference: $0) } }
            .sorted { $0.row.keyText < $1.row.keyText }
        if visible.isEmpty { lines.append("  " + whenUnchanged) }
        var used = lines[0].utf8.count
        for (index, entry) in visible.enumerated() {
            guard used < maxLength else {
                lines.append("  … \(visible.count - index) more changed keys not shown")
                break
            }
            var limits = DumpNode.Limits.standard
            limits.maxCharacters = max(256, (maxLength - used) / 2)
            let entryLines = entry.row.debugLines(difference: entry.difference, limits)
            used += entryLines.reduce(0) { $0 + $1.utf8.count + 1 }
            lines += entryLines
        }
        return cut(lines, toBytes: maxLength)
    }

    /// `lines` joined, and when that is longer than `maxBytes` bytes, cut to fit with a last line
    /// that says how many lines were cut.
    package static func cut(_ lines: [String], toBytes maxBytes: Int) -> String {
        let whole = lines.joined(separator: "\n")
        guard whole.utf8.count > maxBytes else { return whole }
        let footerRoom = 100
        var text = ""
        for (index, line) in lines.enumerated() {
            let line = line.utf8.count > maxBytes - footerRoom ? line.truncated(to: maxBytes / 4) : line
            guard text.utf8.count + line.utf8.count + 1 <= maxBytes - footerRoom else {
                return text + "\n… \(lines.count - index) more lines cut (the report is limited to \(maxBytes) bytes)"
            }
            if index > 0 { text += "\n" }
            text += line
        }
        return text
    }

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
        StateChangeReport.Row(self).visibleDifference != nil
    }
}

extension StateChangeReport {
    /// One line of a report: a key, named as the report shows it, and its values before and after.
    struct Row {
        let keyText: String
        let before: Any?
        let after: Any?

        init<Key>(_ change: StateChange<Key>) {
            self.init(keyText: change.keyText, before: change.before, after: change.after)
        }

        init(keyText: String, before: Any?, after: Any?) {
            self.keyText = keyText
            self.before = before
            self.after = after
        }

        /// The same change under another name.
        func named(_ keyText: String) -> Row {
            Row(keyText: keyText, before: before, after: after)
        }

        /// How the value changed, when it did: added, removed, or a different value.
        var visibleDifference: ValueDifference? {
            switch (before, after) {
            case (nil, nil): nil
            case (let before?, let after?): firstDifference(before, after)
            default: ValueDifference(path: [], kind: .value(characterOffset: nil))
            }
        }

        fileprivate func debugLines(difference: ValueDifference, _ limits: DumpNode.Limits) -> [String] {
            switch (before, after) {
            case (nil, let after?):
                let lines = ValueDump.lines(after, limits: limits)
                return StateChangeReport.attach(lines, to: "  + \(keyText):", indent: "      ")
            case (let before?, nil):
                let lines = ValueDump.lines(before, limits: limits)
                guard lines.count > 1 else { return ["  - \(keyText) (was: \(lines[0]))"] }
                return ["  - \(keyText), was:"] + lines.map { "      " + $0 }
            default:
                let diff = ValueDiff(from: before, to: after, difference: difference, limits: limits)
                if diff.fitsOneLine { return ["  ~ \(keyText): \(diff.old[0]) → \(diff.new[0])"] }
                return ["  ~ \(keyText):"] + diff.markedLines(indent: "    ")
            }
        }
    }
}
